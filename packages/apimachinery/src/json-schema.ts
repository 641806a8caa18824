/**
 * Read-only helpers over JSON Schema values (TypeBox schemas are JSON Schema), shared by defaulting,
 * validation and unknown-field detection. Internal to the package.
 */
import { RE2JS } from '@bufbuild/re2';

/** A JSON Schema node seen as a plain record. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** A JSON object value. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asSchema(value: unknown): JsonSchema | undefined {
  return isJsonObject(value) ? value : undefined;
}

const ownPropertiesCache = new WeakMap<JsonSchema, Map<string, JsonSchema>>();
const propertiesCache = new WeakMap<JsonSchema, Map<string, JsonSchema>>();

/** The schema's own `properties` (cached; schemas are treated as immutable once in use). */
export function ownPropertiesOf(schema: JsonSchema): Map<string, JsonSchema> {
  let out = ownPropertiesCache.get(schema);
  if (out === undefined) {
    out = new Map();
    for (const [name, property] of Object.entries(asSchema(schema['properties']) ?? {})) {
      const child = asSchema(property);
      if (child) out.set(name, child);
    }
    ownPropertiesCache.set(schema, out);
  }
  return out;
}

/** The `properties` of a schema, merged with those of its allOf/anyOf/oneOf branches (cached). */
export function propertiesOf(schema: JsonSchema): Map<string, JsonSchema> {
  let out = propertiesCache.get(schema);
  if (out === undefined) {
    out = new Map(ownPropertiesOf(schema));
    for (const branch of branchesOf(schema)) {
      for (const [name, child] of propertiesOf(branch)) if (!out.has(name)) out.set(name, child);
    }
    propertiesCache.set(schema, out);
  }
  return out;
}

const noBranches: readonly JsonSchema[] = Object.freeze([]);

/** allOf, anyOf and oneOf sub-schemas. */
export function branchesOf(schema: JsonSchema): readonly JsonSchema[] {
  // Most schemas have no branches: no array for them (asked per map key and per node walked).
  if (schema['allOf'] === undefined && schema['anyOf'] === undefined && schema['oneOf'] === undefined) return noBranches;
  const out: JsonSchema[] = [];
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    const list = schema[keyword];
    if (Array.isArray(list))
      for (const item of list) {
        const branch = asSchema(item);
        if (branch) out.push(branch);
      }
  }
  return out;
}

/** What a compiled `pattern` answers: does the text contain a match (as Go's `MatchString`). */
export interface PatternMatcher {
  test(text: string): boolean;
}

const patternCache = new Map<string, PatternMatcher>();

/**
 * A compiled (cached) `pattern`/`patternProperties` regular expression. Upstream compiles them with Go's
 * regexp (RE2): a JavaScript RegExp where the pattern compiles as one (Unicode mode first), else RE2
 * itself, which also reads what JavaScript does not, such as inline flags (`^(?i)(abort|warn)?$`) and
 * POSIX classes. A pattern neither reads is an error of the schema, which CRD validation refuses.
 */
export function compiledPattern(pattern: string): PatternMatcher {
  let compiled = patternCache.get(pattern);
  if (compiled === undefined) {
    compiled = nativeRegExp(pattern) ?? RE2JS.compile(pattern);
    patternCache.set(pattern, compiled);
  }
  return compiled;
}

function nativeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

/**
 * The schema of a map value for `key`: patternProperties first, then an additionalProperties schema, then
 * (unless `ownOnly`) those of allOf/anyOf/oneOf branches.
 */
export function mapValueSchema(schema: JsonSchema, key: string, ownOnly = false): JsonSchema | undefined {
  const patterns = asSchema(schema['patternProperties']);
  if (patterns) {
    for (const pattern of Object.keys(patterns)) {
      if (compiledPattern(pattern).test(key)) return asSchema(patterns[pattern]) ?? {};
    }
  }
  const additional = schema['additionalProperties'];
  if (isJsonObject(additional)) return additional;
  if (ownOnly) return undefined;
  for (const branch of branchesOf(schema)) {
    const found = mapValueSchema(branch, key);
    if (found) return found;
  }
  return undefined;
}

/** The `items` schema of an array schema. */
export function itemsOf(schema: JsonSchema): JsonSchema | undefined {
  const items = asSchema(schema['items']);
  if (items) return items;
  for (const branch of branchesOf(schema)) {
    const found = itemsOf(branch);
    if (found) return found;
  }
  return undefined;
}

/** The declared JSON types of a schema (empty: any). */
export function typesOf(schema: JsonSchema): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((item): item is string => typeof item === 'string');
  return [];
}

/** The JSON type name of a value, as Kubernetes reports it (`integer` for whole numbers). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

export function isNullable(schema: JsonSchema): boolean {
  if (schema['nullable'] === true) return true;
  // typesOf without its array: this runs for every property of every object defaulted or validated.
  const type = schema['type'];
  return type === 'null' || (Array.isArray(type) && type.includes('null'));
}

/** True when the schema declares no JSON type (`typesOf(schema).length === 0`), without allocating. */
function declaresNoType(schema: JsonSchema): boolean {
  const type = schema['type'];
  if (typeof type === 'string') return false;
  return !Array.isArray(type) || !type.some((item) => typeof item === 'string');
}

export function preservesUnknownFields(schema: JsonSchema): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true || schema['additionalProperties'] === true;
}

/** A schema saying nothing about structure (`{}`, Type.Unknown()): anything is accepted and kept. */
export function isOpaque(schema: JsonSchema): boolean {
  return (
    declaresNoType(schema) &&
    schema['properties'] === undefined &&
    schema['patternProperties'] === undefined &&
    schema['additionalProperties'] === undefined &&
    schema['items'] === undefined &&
    branchesOf(schema).length === 0
  );
}

/** `spec` + `replicas` -> `spec.replicas`; at the root just `replicas`. */
export function childPath(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}
