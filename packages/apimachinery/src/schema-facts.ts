/**
 * What the value walkers (validation, defaulting, the type check, unknown fields) read of a schema node,
 * found once per schema object: a walk then makes one lookup per node and reads fields of one shape,
 * instead of a dozen keyword lookups on schema objects of every shape (most of them absent keywords).
 * Internal to the package; schemas are treated as immutable once in use.
 */
import {
  asSchema,
  branchesOf,
  isNullable,
  isOpaque,
  itemsOf,
  ownPropertiesOf,
  preservesUnknownFields,
  propertiesOf,
  type JsonSchema,
} from './json-schema.js';

/** The facts of one schema node (see {@link schemaFacts}). */
export interface SchemaFacts {
  /** `nullable: true`, or `null` among its types. */
  readonly nullable: boolean;
  /** `x-kubernetes-int-or-string: true`. */
  readonly intOrString: boolean;
  /** `type` as written: a string, a list, or absent. */
  readonly type: unknown;
  /** It has allOf, anyOf or oneOf. */
  readonly hasBranches: boolean;
  /** Its own `properties`. */
  readonly ownProperties: Map<string, JsonSchema>;
  /** Its `properties` with those of its branches. */
  readonly properties: Map<string, JsonSchema>;
  /** Its own patternProperties or additionalProperties (a map's values may have a schema of their own). */
  readonly ownMapValues: boolean;
  /** {@link ownMapValues}, or a branch has them. */
  readonly mapValues: boolean;
  /** Its `items` (or a branch's). */
  readonly items: JsonSchema | undefined;
  /** Properties with a `default`. */
  readonly defaulted: ReadonlyArray<readonly [string, JsonSchema]>;
  /** `required`, when a list. */
  readonly required: readonly unknown[] | undefined;
  /** It has minProperties or maxProperties. */
  readonly countsProperties: boolean;
  /** It has a keyword validation reads of a string (minLength, maxLength, pattern, format). */
  readonly checksStrings: boolean;
  /** It has a keyword validation reads of a number (format, minimum, maximum, their exclusive forms, multipleOf). */
  readonly checksNumbers: boolean;
  /** It has a keyword validation reads of a list besides items (minItems, maxItems, list type, uniqueItems). */
  readonly checksLists: boolean;
  /** It says nothing about structure (see isOpaque). */
  readonly opaque: boolean;
  /** `x-kubernetes-preserve-unknown-fields: true` or `additionalProperties: true`. */
  readonly preservesUnknown: boolean;
  /** `x-kubernetes-embedded-resource: true`. */
  readonly embedded: boolean;
}

const facts = new WeakMap<JsonSchema, SchemaFacts>();

/** The facts of `schema` (made on first use, then cached). */
export function schemaFacts(schema: JsonSchema): SchemaFacts {
  let found = facts.get(schema);
  if (found === undefined) {
    found = factsOf(schema);
    facts.set(schema, found);
  }
  return found;
}

function has(schema: JsonSchema, keyword: string): boolean {
  return schema[keyword] !== undefined;
}

function factsOf(schema: JsonSchema): SchemaFacts {
  const type = schema['type'];
  const properties = propertiesOf(schema);
  const ownMapValues = asSchema(schema['patternProperties']) !== undefined || asSchema(schema['additionalProperties']) !== undefined;
  const required = schema['required'];
  return {
    nullable: isNullable(schema),
    intOrString: schema['x-kubernetes-int-or-string'] === true,
    type,
    hasBranches: branchesOf(schema).length > 0,
    ownProperties: ownPropertiesOf(schema),
    properties,
    ownMapValues,
    mapValues: ownMapValues || branchesOf(schema).some((branch) => schemaFacts(branch).mapValues),
    items: itemsOf(schema),
    defaulted: [...properties].filter(([, property]) => property['default'] !== undefined),
    required: Array.isArray(required) ? required : undefined,
    countsProperties: has(schema, 'minProperties') || has(schema, 'maxProperties'),
    checksStrings: ['minLength', 'maxLength', 'pattern', 'format'].some((keyword) => has(schema, keyword)),
    checksNumbers: ['format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].some((keyword) => has(schema, keyword)),
    checksLists: ['minItems', 'maxItems', 'x-kubernetes-list-type', 'uniqueItems'].some((keyword) => has(schema, keyword)),
    opaque: isOpaque(schema),
    preservesUnknown: preservesUnknownFields(schema),
    embedded: schema['x-kubernetes-embedded-resource'] === true,
  };
}
