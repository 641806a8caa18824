/** The parts of a JSON schema the type check reads. */
type Schema = Record<string, unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema of a map's values (`additionalProperties`, or TypeBox's one `patternProperties` entry). */
function mapValues(schema: Schema): Schema | undefined {
  if (isRecord(schema['additionalProperties'])) return schema['additionalProperties'];
  const patterns = schema['patternProperties'];
  if (!isRecord(patterns)) return undefined;
  const first = Object.values(patterns)[0];
  return isRecord(first) ? first : undefined;
}

/** encoding/json's name of a JSON value's type (`number 1.5` for a number an integer field cannot take). */
function jsonTypeName(value: unknown, integer: boolean): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  // A number where an integer goes is named with its value (a fraction, or one too large for the field).
  if (typeof value === 'number') return integer ? `number ${value}` : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The Go type a schema stands for, as encoding/json prints it (struct names only where they are known). */
function goTypeName(schema: Schema, structName: string, goPackage: string): string {
  switch (schema['type']) {
    case 'string':
      return schema['format'] === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return schema['format'] === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${isRecord(schema['items']) ? goTypeName(schema['items'], structName, goPackage) : 'interface {}'}`;
    case 'object': {
      const values = mapValues(schema);
      return values
        ? `map[string]${goTypeName(values, structName, goPackage)}`
        : `${goPackage}.${structName}`;
    }
    default:
      return 'interface {}';
  }
}

/** Whether `value` has a JSON type encoding/json decodes into the Go type of `schema`. */
function fits(value: unknown, schema: Schema): boolean {
  if (value === null) return true;
  if (schema['x-kubernetes-int-or-string'] === true)
    return typeof value === 'string' || Number.isInteger(value);
  switch (schema['type']) {
    case 'string':
      return typeof value === 'string';
    case 'integer': {
      if (!Number.isInteger(value)) return false;
      // An int32 or int64 takes only what fits in it.
      const limit = schema['format'] === 'int32' ? 2 ** 31 : 2 ** 63;
      return (value as number) >= -limit && (value as number) < limit;
    }
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      return true;
  }
}

/**
 * The first value of a built-in object whose JSON type its field's Go type cannot take, as encoding/json
 * reports it: `json: cannot unmarshal number into Go struct field ConfigMap.data of type string`. The
 * struct named is the innermost one whose Go name is known here: the kind for its own fields,
 * `<Kind>Spec` / `<Kind>Status` under spec and status, in the package named after the version (`v1`).
 * `metadata` has its own check. Undefined when everything fits.
 */
export function goUnmarshalError(
  object: Record<string, unknown>,
  schema: Schema,
  kind: string,
  version: string,
): string | undefined {
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  // for-in, not entries: this runs on every create and update of a built-in (JSON objects inherit no keys).
  for (const key in object) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
    const value = object[key];
    const child = properties[key];
    if (!isRecord(child)) continue;
    const structName =
      key === 'spec' || key === 'status' ? `${kind}${key === 'spec' ? 'Spec' : 'Status'}` : kind;
    const error = check(value, child, { owner: kind, path: key, structName, goPackage: version });
    if (error !== undefined) return error;
  }
  return undefined;
}

/** Where a value sits: the struct holding it, its path from the root, its own struct's name, the Go package. */
interface Place {
  owner: string;
  path: string;
  structName: string;
  goPackage: string;
}

function check(value: unknown, schema: Schema, place: Place): string | undefined {
  const { owner, path, structName, goPackage } = place;
  if (!fits(value, schema)) {
    const integer = schema['type'] === 'integer';
    return `json: cannot unmarshal ${jsonTypeName(value, integer)} into Go struct field ${owner}.${path} of type ${goTypeName(schema, structName, goPackage)}`;
  }
  if (Array.isArray(value)) {
    if (!isRecord(schema['items'])) return undefined;
    for (const item of value) {
      const error = check(item, schema['items'], place);
      if (error !== undefined) return error;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const values = mapValues(schema);
  if (values) {
    // A map's values are reported at the map's field, with the value's own Go type.
    for (const key in value) {
      const item = value[key];
      const error = check(item, values, place);
      if (error !== undefined) return error;
    }
    return undefined;
  }
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  // This struct's fields are reported against it; deeper structs, whose Go names are unknown here, keep it.
  for (const key in value) {
    const child = value[key];
    const childSchema = properties[key];
    if (!isRecord(childSchema)) continue;
    const error = check(child, childSchema, { ...place, owner: structName, path: `${path}.${key}` });
    if (error !== undefined) return error;
  }
  return undefined;
}
