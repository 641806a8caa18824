/** Read-only helpers over a CRD schema node seen as a plain JSON record (internal to the package). */

/** A schema node as a plain record. */
export type SchemaNode = Readonly<Record<string, unknown>>;

/** A JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The node's `properties` schemas. */
export function propertySchemas(schema: SchemaNode): Map<string, SchemaNode> {
  const out = new Map<string, SchemaNode>();
  const properties = schema['properties'];
  if (isRecord(properties))
    for (const [name, child] of Object.entries(properties)) if (isRecord(child)) out.set(name, child);
  return out;
}

/** The schema of the value under `key` of an object node: a property, else the additionalProperties schema. */
export function childSchema(schema: SchemaNode | undefined, key: string): SchemaNode | undefined {
  if (schema === undefined) return undefined;
  const properties = schema['properties'];
  if (isRecord(properties) && isRecord(properties[key])) return properties[key];
  const additional = schema['additionalProperties'];
  return isRecord(additional) ? additional : undefined;
}

/** The `items` schema of an array node. */
export function itemSchema(schema: SchemaNode | undefined): SchemaNode | undefined {
  const items = schema?.['items'];
  return isRecord(items) ? items : undefined;
}

/** `spec` + `replicas` -> `spec.replicas`; at the root just `replicas`. */
export function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

