import { isRecord, type SchemaNode } from './schema-node.js';

/** What the per-object walks (pruning, defaulting, validation, CEL conversion) read of a schema node. */
export interface SchemaFacts {
  /** The `properties` schemas. */
  readonly properties: ReadonlyMap<string, SchemaNode>;
  /** The `additionalProperties` schema, when it is one (not a boolean). */
  readonly additionalProperties: SchemaNode | undefined;
  /** The `items` schema. */
  readonly items: SchemaNode | undefined;
  /** Unknown fields are kept: `x-kubernetes-preserve-unknown-fields` or `additionalProperties: true`. */
  readonly preservesUnknownFields: boolean;
  readonly isEmbeddedResource: boolean;
  readonly nullable: boolean;
  /** Properties that have a `default`, with it. */
  readonly defaults: readonly (readonly [string, unknown])[];
}

const facts = new WeakMap<SchemaNode, SchemaFacts>();

/**
 * The facts of a schema node, read once per node: a CRD version's schema is compiled once and never changed,
 * while every create walks it several times (checking for unknown fields, defaulting, validating, CEL).
 */
export function schemaFacts(schema: SchemaNode): SchemaFacts {
  let found = facts.get(schema);
  if (found === undefined) {
    const properties = new Map<string, SchemaNode>();
    const declared = schema['properties'];
    if (isRecord(declared))
      for (const [name, child] of Object.entries(declared)) if (isRecord(child)) properties.set(name, child);
    const additional = schema['additionalProperties'];
    const items = schema['items'];
    found = {
      properties,
      additionalProperties: isRecord(additional) ? additional : undefined,
      items: isRecord(items) ? items : undefined,
      preservesUnknownFields: schema['x-kubernetes-preserve-unknown-fields'] === true || additional === true,
      isEmbeddedResource: schema['x-kubernetes-embedded-resource'] === true,
      nullable: schema['nullable'] === true,
      defaults: [...properties]
        .filter(([, property]) => property['default'] !== undefined)
        .map(([name, property]) => [name, property['default']] as const),
    };
    facts.set(schema, found);
  }
  return found;
}
