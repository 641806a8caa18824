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
  const inUse = (name: string) => `"${name}" is already in use`;
  // Each check that fails sets the condition, so the last conflict found is the one reported, as upstream.
  let conflict: { reason: string; message: string } | undefined;
  const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', pool: Set<string>, reason: string) => {
    const value = requested[field];
    if (value === undefined) return;
    if (pool.has(value)) conflict = { reason, message: inUse(value) };
    else accepted[field] = value;
  };
  check('plural', resources, 'PluralConflict');
  check('singular', resources, 'SingularConflict');
  const clashingShort = (requested.shortNames ?? []).filter((name) => resources.has(name) && !(previous.shortNames ?? []).includes(name));
  // Several conflicts read as Go's aggregate error: `[a, b]`.
  if (clashingShort.length > 0) {
    const messages = clashingShort.map(inUse);
    conflict = { reason: 'ShortNamesConflict', message: messages.length === 1 ? (messages[0] as string) : `[${messages.join(', ')}]` };
  } else if (requested.shortNames) accepted.shortNames = requested.shortNames;
  check('kind', kinds, 'KindConflict');
  check('listKind', kinds, 'ListKindConflict');
  if (requested.categories) accepted.categories = requested.categories;
  return {
    acceptedNames: accepted,
    condition: conflict
      ? { type: 'NamesAccepted', status: 'False', ...conflict }
      : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
  };
}
