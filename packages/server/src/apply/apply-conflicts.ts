import { StatusError, type StatusCause } from '@kapi/apimachinery';
import { pathText } from './field-path.js';
import type { FieldSet } from './field-set.js';

/** The fields an apply would take from one other manager (identity JSON → its conflicting fields). */
export type ConflictSets = Map<string, FieldSet>;

/** How a manager is named in conflict messages: `"mgr"`, `"mgr" with subresource "status"`, `… using v1`. */
export function printManager(identity: string): string {
  let entry: { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  try {
    entry = JSON.parse(identity) as typeof entry;
  } catch {
    return JSON.stringify(identity);
  }
  let text = JSON.stringify(entry.manager ?? '');
  if (entry.subresource) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === 'Update') text += ` using ${entry.apiVersion ?? ''}`;
  return text;
}

/**
 * The 409 of an apply that conflicts with other managers: message `Apply failed with N conflict(s): …`
 * and one `FieldManagerConflict` cause per field.
 */
export function applyConflictError(conflicts: ConflictSets): StatusError {
  const managers = [...conflicts.keys()].sort();
  const causes: StatusCause[] = [];
  const lines: string[] = [];
  for (const identity of managers) {
    const manager = printManager(identity);
    lines.push(`conflicts with ${manager}:`);
    for (const path of (conflicts.get(identity) as FieldSet).paths()) {
      const field = pathText(path);
      causes.push({ reason: 'FieldManagerConflict', message: `conflict with ${manager}`, field });
      lines.push(`- ${field}`);
    }
  }
  const message =
    causes.length === 1
      ? `Apply failed with 1 conflict: ${causes[0]?.message ?? ''}: ${causes[0]?.field ?? ''}`
      : `Apply failed with ${causes.length} conflicts: ${lines.join('\n')}`;
  return StatusError.of(409, 'Conflict', message, { causes });
}
