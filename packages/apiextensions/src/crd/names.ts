import type { Condition } from '@kapi/apimachinery';
import type { CustomResourceDefinition, CustomResourceDefinitionNames } from './types.js';

/** The outcome of the naming check: the names to accept and the NamesAccepted condition. */
export interface NamesOutcome {
  acceptedNames: CustomResourceDefinitionNames;
  condition: Omit<Condition, 'lastTransitionTime'>;
}

/**
 * The naming controller's decision (upstream naming_controller): the requested names are checked against
 * the accepted names of the other CRDs of the same group; names that clash keep their previously
 * accepted value, the others are accepted.
 */
export function calculateNames(crd: CustomResourceDefinition, others: readonly CustomResourceDefinition[]): NamesOutcome {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const other of others) {
    if (other.spec.group !== crd.spec.group || other.metadata.name === crd.metadata.name) continue;
    const names = other.status?.acceptedNames;
    if (!names) continue;
    for (const name of [names.plural, names.singular, ...(names.shortNames ?? [])]) if (name) resources.add(name);
    for (const name of [names.kind, names.listKind]) if (name) kinds.add(name);
  }
  const requested = crd.spec.names;
  const previous = crd.status?.acceptedNames ?? { plural: '', kind: '' };
  const accepted: CustomResourceDefinitionNames = { ...previous };
  const conflicts: Array<{ reason: string; name: string }> = [];
  const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', pool: Set<string>, reason: string) => {
    const value = requested[field];
    if (value === undefined) return;
    if (pool.has(value)) conflicts.push({ reason, name: value });
    else accepted[field] = value;
  };
  check('plural', resources, 'PluralConflict');
  check('singular', resources, 'SingularConflict');
  const clashingShort = (requested.shortNames ?? []).find((name) => resources.has(name));
  if (clashingShort !== undefined) conflicts.push({ reason: 'ShortNamesConflict', name: clashingShort });
  else if (requested.shortNames) accepted.shortNames = requested.shortNames;
  check('kind', kinds, 'KindConflict');
  check('listKind', kinds, 'ListKindConflict');
  if (requested.categories) accepted.categories = requested.categories;
  const first = conflicts[0];
  return {
    acceptedNames: accepted,
    condition: first
      ? { type: 'NamesAccepted', status: 'False', reason: first.reason, message: `"${first.name}" is already in use` }
      : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
  };
}
