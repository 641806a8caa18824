import type { Selector } from './selector.js';
import { StatusError } from './status-error.js';
import {
  newLabelRequirement,
  requirementMatches,
  requirementString,
  quote,
  type LabelOperator,
  type LabelRequirement,
} from './label-requirement.js';
import { parseLabelRequirements } from './label-selector-parser.js';

export type { LabelOperator, LabelRequirement } from './label-requirement.js';
export { newLabelRequirement, requirementString } from './label-requirement.js';

/** A parsed label selector: a Selector whose requirements can be inspected. */
export interface LabelSelector extends Selector {
  readonly requirements: readonly LabelRequirement[];
  /** The single value `label` must equal (`=`, `==` or a one-value `in`), if the selector pins one. */
  requiresExactMatch(label: string): string | undefined;
}

/** metav1.LabelSelector as it appears in objects (`spec.selector`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** Builds a selector over requirements (sorted by key, as upstream). */
export function labelSelectorOf(requirements: LabelRequirement[]): LabelSelector {
  const sorted = [...requirements].sort((left, right) =>
    left.key < right.key ? -1 : left.key > right.key ? 1 : 0,
  );
  const text = sorted.map(requirementString).join(',');
  return {
    requirements: sorted,
    matches: (labels) => sorted.every((requirement) => requirementMatches(requirement, labels)),
    empty: () => sorted.length === 0,
    toString: () => text,
    requiresExactMatch: (label) => {
      for (const requirement of sorted) {
        if (requirement.key !== label) continue;
        const { operator, values } = requirement;
        const pins = operator === '=' || operator === '==' || operator === 'in';
        if (pins && values.length === 1) return values[0];
      }
      return undefined;
    },
  };
}

/** The selector that matches every object. */
export const everything: LabelSelector = labelSelectorOf([]);

/** The selector that matches no object (a nil metav1.LabelSelector). */
export const nothing: Selector = {
  matches: () => false,
  empty: () => false,
  toString: () => '',
};

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Parses a label selector (`?labelSelector=`) as labels.Parse: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a`, `!a`, comma-separated. Throws StatusError.badRequest with upstream's wording.
 */
export function parseLabelSelector(text: string): LabelSelector {
  try {
    return labelSelectorOf(parseLabelRequirements(text));
  } catch (error) {
    if (StatusError.isInstance(error)) throw error;
    throw StatusError.badRequest(describe(error));
  }
}

/**
 * metav1.LabelSelectorAsSelector: matchLabels as equality requirements, matchExpressions with In, NotIn,
 * Exists, DoesNotExist. An undefined selector matches nothing; an empty one matches everything.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | undefined | null): Selector {
  if (selector === undefined || selector === null) return nothing;
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    requirements.push(newLabelRequirement(key, '=', [value]));
  }
  const operators: Record<string, LabelOperator> = {
    In: 'in',
    NotIn: 'notin',
    Exists: 'exists',
    DoesNotExist: '!',
  };
  for (const expression of selector.matchExpressions ?? []) {
    const operator = operators[expression.operator];
    if (operator === undefined) {
      throw StatusError.badRequest(`${quote(expression.operator)} is not a valid label selector operator`);
    }
    requirements.push(newLabelRequirement(expression.key, operator, [...(expression.values ?? [])]));
  }
  return labelSelectorOf(requirements);
}
