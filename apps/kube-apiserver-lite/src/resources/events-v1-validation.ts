import { sameJson, type FieldError, type KubeObject } from '@kapi/apimachinery';
import { validateEvent } from './event-validation.js';

// Upstream's ValidateEventCreate / ValidateEventUpdate for requests at events.k8s.io/v1, on the core/v1 form
// of the event (so field paths are upstream's internal names: `message`, `involvedObject`, `source`...).

const invalid = (field: string, detail: string, value: unknown = ''): FieldError => ({
  field,
  type: 'FieldValueInvalid',
  value,
  detail,
});
const required = (field: string): FieldError => ({ field, type: 'FieldValueRequired', detail: '' });
const isSet = (value: unknown): boolean => value !== undefined && value !== null && value !== '';

/** Upstream's `validateV1EventSeries`. */
function validateSeries(event: KubeObject): FieldError[] {
  const series = event.series as { count?: number; lastObservedTime?: string } | undefined | null;
  if (!series) return [];
  const errors: FieldError[] = [];
  if ((series.count ?? 0) < 2) errors.push(invalid('series.count', 'should be at least 2'));
  if (!isSet(series.lastObservedTime)) errors.push(required('series.lastObservedTime'));
  return errors;
}

/**
 * Upstream's `ValidateEventCreate` at events.k8s.io/v1: the legacy checks plus the strict ones (eventTime
 * required, type Normal or Warning, the deprecated fields unset, a series of at least 2).
 */
export function validateEventsV1Create(event: KubeObject): FieldError[] {
  const errors = [...validateEvent(event, 'reportingController'), ...validateSeries(event)];
  if (!isSet(event.eventTime)) errors.push(required('eventTime'));
  const type = typeof event.type === 'string' ? event.type : '';
  if (type !== 'Normal' && type !== 'Warning') errors.push(invalid('type', `has invalid value: ${type}`));
  if (isSet(event.firstTimestamp)) errors.push(invalid('firstTimestamp', 'needs to be unset'));
  if (isSet(event.lastTimestamp)) errors.push(invalid('lastTimestamp', 'needs to be unset'));
  if (isSet(event.count) && event.count !== 0) errors.push(invalid('count', 'needs to be unset'));
  const source = (event.source ?? {}) as { component?: string; host?: string };
  if (isSet(source.component) || isSet(source.host)) errors.push(invalid('source', 'needs to be unset'));
  return errors;
}

/** The fields an events.k8s.io/v1 update may not change (upstream's `ValidateEventUpdate`), core names. */
const immutable = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
];
const fieldPath = (name: string) => (name === 'reportingComponent' ? 'reportingController' : name);
const emptyAsAbsent = (value: unknown) => (value === null || value === '' || value === 0 ? undefined : value);

/**
 * Upstream's `ValidateEventUpdate` at events.k8s.io/v1: the legacy checks, a changed series validated,
 * and every other field immutable.
 */
export function validateEventsV1Update(event: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateEvent(event, 'reportingController');
  if (!sameJson(event.series ?? null, old.series ?? null)) errors.push(...validateSeries(event));
  for (const name of immutable) {
    if (!sameJson(emptyAsAbsent(event[name]) ?? null, emptyAsAbsent(old[name]) ?? null))
      errors.push(invalid(fieldPath(name), 'field is immutable', event[name]));
  }
  return errors;
}
