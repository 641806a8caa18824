import { isRecord, type SchemaNode } from '../schema/schema-node.js';
import { schemaFacts } from '../schema/schema-facts.js';
import type { CelInput, CelValue } from '@bufbuild/cel';
import { jsonCelList, jsonCelMap } from './json-containers.js';

const reserved = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * The CEL name of a declared property, escaped as upstream does (`namespace` -> `__namespace__`, `a.b` ->
 * `a__dot__b`, `a-b` -> `a__dash__b`, `a/b` -> `a__slash__b`, `__` -> `__underscores__`).
 */
export function escapePropertyName(name: string): string {
  let escaped = escapedNames.get(name);
  if (escaped === undefined) {
    escaped = reserved.has(name)
      ? `__${name}__`
      : name.replace(/__|[.\-/]/g, (part) =>
          part === '__' ? '__underscores__' : part === '.' ? '__dot__' : part === '-' ? '__dash__' : '__slash__',
        );
    if (escapedNames.size < maxEscapedNames) escapedNames.set(name, escaped);
  }
  return escaped;
}

/** Escaped names of declared properties (a bounded set: schemas declare them), computed once each. */
const escapedNames = new Map<string, string>();
const maxEscapedNames = 10_000;

/** The property name behind an escaped CEL field name (`__namespace__` -> `namespace`, `a__dot__b` -> `a.b`). */
export function unescapePropertyName(name: string): string {
  const keyword = /^__(.+)__$/.exec(name)?.[1];
  if (keyword !== undefined && reserved.has(keyword)) return keyword;
  const parts: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };
  return name.replace(/__(underscores|dot|dash|slash)__/g, (_, part: string) => parts[part] ?? part);
}

/** Objects and arrays already converted during one evaluation, with the schema they were converted under. */
export type CelValueCache = Map<object, { schema: SchemaNode | undefined; value: CelInput }>;

/**
 * Converts a JSON value into a CEL input typed by its schema, as upstream's `UnstructuredToVal` does: whole numbers
 * become `int` (bigint) unless the schema says `number`, objects become maps, preserved-unknown parts stay dynamic.
 * With a `cache`, each object or array is converted once however many rules on it and its parents read it.
 */
export function toCelValue(value: unknown, schema: SchemaNode | undefined, cache?: CelValueCache): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    const isDouble = schema?.['type'] === 'number' || !Number.isInteger(value);
    return isDouble ? value : BigInt(value);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value !== 'object') return null;
  const cached = cache?.get(value);
  if (cached !== undefined && cached.schema === schema) return cached.value;
  let converted: CelInput = null;
  const facts = schema === undefined ? undefined : schemaFacts(schema);
  if (Array.isArray(value)) {
    const items = facts?.items;
    const list: CelValue[] = new Array<CelValue>(value.length);
    for (let index = 0; index < value.length; index++) list[index] = toCelValue(value[index], items, cache) as CelValue;
    converted = jsonCelList(list);
  } else if (isRecord(value)) {
    const out = new Map<string, CelValue>();
    // for-in, not Object.keys: no array of keys per object (JSON objects have no inherited enumerable keys).
    for (const key in value) {
      const child = value[key];
      if (child === undefined) continue;
      const property = facts?.properties.get(key);
      const name = property !== undefined ? escapePropertyName(key) : key;
      out.set(name, toCelValue(child, property ?? facts?.additionalProperties, cache) as CelValue);
    }
    converted = jsonCelMap(out);
  }
  cache?.set(value, { schema, value: converted });
  return converted;
}
