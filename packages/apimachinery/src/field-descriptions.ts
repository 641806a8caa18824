import type { TSchema } from '@sinclair/typebox';

/**
 * Field descriptions of a kind, keyed by field path (the texts upstream publishes in its OpenAPI
 * documents). A path is a dot-separated list of property names from the kind's top level; a `[]`
 * after a name steps into the items of that array property, e.g. `data`, `spec.holderIdentity`,
 * `rules[].verbs`, `status.conditions[].type`.
 */
export type FieldDescriptions = Readonly<Record<string, string>>;

type SchemaNode = TSchema & { properties?: Record<string, SchemaNode>; items?: SchemaNode };

/** A shallow copy that keeps TypeBox's symbol keys (Kind, OptionalKind). */
const copy = <T extends object>(node: T): T => ({ ...node });

/** One step of a path: a property name, and whether to go on into its array items. */
function parseStep(step: string, path: string): { name: string; items: boolean } {
  const items = step.endsWith('[]');
  const name = items ? step.slice(0, -2) : step;
  if (name === '') throw new Error(`field description path ${JSON.stringify(path)}: empty property name`);
  return { name, items };
}

/**
 * Sets `description` on the field at `path`, copying every node on the way (so a subschema shared
 * with other fields or kinds, like ObjectReference, keeps its own description-free original).
 */
function describe(root: SchemaNode, path: string, description: string): void {
  let node = root;
  const steps = path.split('.');
  steps.forEach((step, index) => {
    const { name, items } = parseStep(step, path);
    const properties = node.properties;
    const child = properties !== undefined && Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (child === undefined)
      throw new Error(`field description path ${JSON.stringify(path)}: no property ${JSON.stringify(name)}`);
    let next = copy(child);
    node.properties = { ...properties, [name]: next };
    if (items) {
      if (next.items === undefined)
        throw new Error(
          `field description path ${JSON.stringify(path)}: ${JSON.stringify(name)} is not an array`,
        );
      const element = copy(next.items);
      next.items = element;
      if (index === steps.length - 1) {
        // `foo[]` as the last step describes the array items themselves.
        element.description = description;
        return;
      }
      next = element;
    } else if (index === steps.length - 1) {
      next.description = description;
      return;
    }
    node = next;
  });
}

/**
 * Returns `schema` with the descriptions of `table` set on its fields (see {@link FieldDescriptions}
 * for the path syntax). The input schema and the subschemas it shares are left unchanged; only the
 * nodes on each path are copied. Throws when a path names a field the schema does not have, so a
 * typo in a table or a changed schema is caught when the kind is defined.
 */
export function withFieldDescriptions<T extends TSchema>(schema: T, table: FieldDescriptions): T {
  const root = copy(schema) as T & SchemaNode;
  for (const [path, description] of Object.entries(table)) describe(root, path, description);
  return root;
}
