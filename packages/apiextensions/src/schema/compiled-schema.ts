import type { FieldError } from '@kapi/apimachinery';

/** A CRD version's structural schema, compiled once (CEL programs included) and used per request. */
export interface CompiledSchema {
  /**
   * Removes fields the schema does not declare (kept under `x-kubernetes-preserve-unknown-fields`; the root and
   * embedded resources keep apiVersion/kind/metadata) and returns the pruned paths (`spec.foo`, `a[0].b`).
   */
  prune(object: Record<string, unknown>): string[];
  /** The paths `prune` would remove, leaving the object as it is. */
  unknownFields(object: Record<string, unknown>): string[];
  /** Applies schema defaults in place (on write and when reading from storage). */
  applyDefaults(object: Record<string, unknown>): void;
  /** True when `prune` then `applyDefaults` would leave the object unchanged (one walk, nothing copied). */
  isPrunedAndDefaulted(object: Record<string, unknown>): boolean;
  /**
   * OpenAPI validation then CEL `x-kubernetes-validations` (transition rules with `oldSelf` when `old` is
   * given), with upstream's field paths and messages. Metadata and TypeMeta are the caller's business.
   */
  validate(object: Record<string, unknown>, old?: Record<string, unknown>): FieldError[];
  /** How many CEL programs (rules and message expressions) were compiled for this schema. */
  readonly celRuleCount: number;
}

/** The result of checking one CRD version's schema at CRD create/update. */
export interface SchemaValidationResult {
  /** Errors that refuse the CRD (structural violations, invalid defaults, CEL compile and cost errors). */
  errors: FieldError[];
  /** Reasons for the NonStructuralSchema condition (`spec.versions[0].schema.openAPIV3Schema.type: Required value: ...`). */
  nonStructural: string[];
}

/** Options of `validateCustomResourceSchema`. */
export interface SchemaValidationOptions {
  /** The CRD's `spec.preserveUnknownFields` (v1 requires false; only legacy objects carry true). */
  preserveUnknownFieldsAllowed?: boolean;
}
