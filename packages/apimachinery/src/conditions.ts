import type { Condition } from './meta-types.js';

/** A condition to set; `lastTransitionTime` is filled in when omitted. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/** RFC 3339 with second precision, as metav1.Time serialises (`2024-01-02T03:04:05Z`). */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The condition of the given type, if present (meta.FindStatusCondition). */
export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/**
 * Returns a new array with `condition` set (meta.SetStatusCondition): a new type is appended; an existing one
 * gets reason, message and observedGeneration replaced, and its `lastTransitionTime` moves only when the
 * status flips (to the given time, else `now`).
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  condition: ConditionInput,
  now: Date = new Date(),
): Condition[] {
  const list = [...(conditions ?? [])];
  const index = list.findIndex((existing) => existing.type === condition.type);
  const existing = index >= 0 ? list[index] : undefined;
  if (existing === undefined) {
    list.push({ ...condition, lastTransitionTime: condition.lastTransitionTime ?? formatTime(now) });
    return list;
  }
  const updated: Condition = { ...existing, reason: condition.reason, message: condition.message };
  if (existing.status !== condition.status) {
    updated.status = condition.status;
    updated.lastTransitionTime = condition.lastTransitionTime ?? formatTime(now);
  }
  if (condition.observedGeneration !== undefined) updated.observedGeneration = condition.observedGeneration;
  else delete updated.observedGeneration;
  list[index] = updated;
  return list;
}
