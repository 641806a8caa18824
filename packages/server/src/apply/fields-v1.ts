import { isPathElement, type PathElement } from './field-path.js';
import { FieldSet } from './field-set.js';

/** The fieldsV1 JSON object of a managedFields entry. */
export type FieldsV1 = { [element: string]: FieldsV1 };

/**
 * Serializes a set as fieldsV1: one key per element in sibling order; `"."` (first) marks a member that
 * also has children; a member without children is `{}`.
 */
export function toFieldsV1(set: FieldSet): FieldsV1 {
  // Built as text and parsed once: JSON.parse makes these many-keyed objects faster than assigning
  // each key (the keys differ everywhere, so every assignment would be a megamorphic store).
  return JSON.parse(fieldsV1Text(set)) as FieldsV1;
}

/** The JSON text of {@link toFieldsV1}. */
function fieldsV1Text(set: FieldSet): string {
  let text = '';
  set.forEach((element, member, below) => {
    let value = '{}';
    if (!below.isEmpty()) {
      const children = fieldsV1Text(below);
      value = member ? `{".":{},${children.slice(1)}` : children;
    }
    text += `${text === '' ? '' : ','}${JSON.stringify(element)}:${value}`;
  });
  return `{${text}}`;
}

/** Why a fieldsV1 value could not be read. */
export class FieldsV1Error extends Error {}

/** Parses fieldsV1 into a set; throws {@link FieldsV1Error} on anything that is not a fieldsV1 trie. */
export function fromFieldsV1(fields: unknown): FieldSet {
  const set = FieldSet.empty();
  const walk = (node: unknown, prefix: PathElement[]) => {
    if (typeof node !== 'object' || node === null || Array.isArray(node))
      throw new FieldsV1Error('fieldsV1 nodes must be objects');
    const entries = Object.entries(node as Record<string, unknown>);
    for (const [key, child] of entries) {
      if (key === '.') {
        if (prefix.length > 0) set.insert(prefix);
        continue;
      }
      if (!isPathElement(key)) throw new FieldsV1Error(`unknown path element ${JSON.stringify(key)}`);
      const path = [...prefix, key];
      if (typeof child === 'object' && child !== null && Object.keys(child).length === 0) set.insert(path);
      else walk(child, path);
    }
  };
  walk(fields, []);
  return set;
}
