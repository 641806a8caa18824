/**
 * apiextensions.k8s.io/v1 `JSONSchemaProps`: the OpenAPI v3 subset a CustomResourceDefinition's
 * `openAPIV3Schema` may use, with the Kubernetes `x-kubernetes-*` extensions.
 */

/** One `x-kubernetes-validations` entry: a CEL rule and how its failure is reported. */
export interface ValidationRule {
  /** The CEL expression; `self` is the value at the schema node, `oldSelf` the previous one (transition rule). */
  rule: string;
  /** Fixed failure message (default `failed rule: <rule>`). */
  message?: string;
  /** A CEL expression returning the failure message (wins over `message` when it yields a non-empty string). */
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired` or `FieldValueDuplicate`. */
  reason?: string;
  /** A JSON path relative to the node (`.spec.x`, `.list[0]`, `['a.b']`) the error is reported at. */
  fieldPath?: string;
  /** When true a transition rule also runs on create / when the old value is absent (`oldSelf` is then optional). */
  optionalOldSelf?: boolean;
}

/** External documentation of a schema node. */
export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

/** A structural (OpenAPI v3) schema node of a CustomResourceDefinition version. */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: ExternalDocumentation;
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}
