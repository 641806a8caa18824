import { childSchema, isRecord, itemSchema, type SchemaNode } from '../schema/schema-node.js';
import { celList, celMap, type CelInput } from '@bufbuild/cel';

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
  if (reserved.has(name)) return `__${name}__`;
  return name.replace(/__|[.\-/]/g, (part) =>
    part === '__' ? '__underscores__' : part === '.' ? '__dot__' : part === '-' ? '__dash__' : '__slash__',
  );
}

/** The property name behind an escaped CEL field name (`__namespace__` -> `namespace`, `a__dot__b` -> `a.b`). */
export function unescapePropertyName(name: string): string {
  const keyword = /^__(.+)__$/.exec(name)?.[1];
  if (keyword !== undefined && reserved.has(keyword)) return keyword;
  const parts: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };
  return name.replace(/__(underscores|dot|dash|slash)__/g, (_, part: string) => parts[part] ?? part);
}

/**
 * Converts a JSON value into a CEL input typed by its schema, as upstream's `UnstructuredToVal` does: whole numbers
 * become `int` (bigint) unless the schema says `number`, objects become maps, preserved-unknown parts stay dynamic.
 */
export function toCelValue(value: unknown, schema: SchemaNode | undefined): CelInput {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    const isDouble = schema?.['type'] === 'number' || !Number.isInteger(value);
    return isDouble ? value : BigInt(value);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = itemSchema(schema);
    return celList(value.map((item) => toCelValue(item, items)));
  }
  if (isRecord(value)) {
    const out = new Map<string, CelInput>();
    const declared = isRecord(schema?.['properties']) ? schema['properties'] : undefined;
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined) continue;
      const name = declared !== undefined && key in declared ? escapePropertyName(key) : key;
      out.set(name, toCelValue(child, childSchema(schema, key)));
    }
    return celMap(out);
  }
  return null;
}
