import { Scheme, type KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { cohabitingStorage } from '../cohabiting-storage.js';
import { builtInKinds } from './index.js';
import { coreToEventsV1, eventsV1ToCore } from './events-v1.js';
import { validateEventsV1Create, validateEventsV1Update } from './events-v1-validation.js';

const eventsV1: KubeObject = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name: 'e', namespace: 'default' },
  eventTime: '2026-01-02T03:04:05.000000Z',
  series: { count: 2, lastObservedTime: '2026-01-02T03:05:00.000000Z' },
  reportingController: 'example.com/c',
  reportingInstance: 'c-1',
  action: 'Act',
  reason: 'Why',
  regarding: { kind: 'ConfigMap', name: 'x', namespace: 'default' },
  related: { kind: 'Secret', name: 'y', namespace: 'default' },
  note: 'hello',
  type: 'Normal',
  deprecatedSource: { component: 'old' },
  deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
  deprecatedLastTimestamp: null,
  deprecatedCount: 3,
};

describe('events.k8s.io/v1 conversion', () => {
  it('maps every field to its core/v1 name and back', () => {
    const legacy = eventsV1ToCore(eventsV1);
    expect(legacy).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: eventsV1.metadata,
      eventTime: eventsV1.eventTime,
      series: eventsV1.series,
      reportingComponent: 'example.com/c',
      reportingInstance: 'c-1',
      action: 'Act',
      reason: 'Why',
      involvedObject: eventsV1.regarding,
      related: eventsV1.related,
      message: 'hello',
      type: 'Normal',
      source: { component: 'old' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: null,
      count: 3,
    });
    expect(coreToEventsV1(legacy)).toEqual(eventsV1);
  });

  it('is stored in the core/v1 encoding and read back as events.k8s.io/v1', () => {
    const scheme = new Scheme();
    for (const kind of builtInKinds) scheme.addKind(kind);
    const storage = cohabitingStorage(scheme, { group: 'events.k8s.io', resource: 'events' });
    expect(storage?.storedAs).toEqual({ group: '', resource: 'events' });
    expect(storage?.encodingVersion).toBe('v1');
    const bytes = storage?.codec.encode(eventsV1) ?? new Uint8Array();
    expect(JSON.parse(Buffer.from(bytes).toString())).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      message: 'hello',
    });
    expect(storage?.codec.decode(bytes)).toEqual(eventsV1);
    expect(cohabitingStorage(scheme, { group: '', resource: 'events' })).toBeUndefined();
  });
});

describe('events.k8s.io/v1 validation', () => {
  const valid = eventsV1ToCore({
    ...eventsV1,
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedCount: 0,
  });
  const fields = (errors: Array<{ field: string }>) => errors.map((error) => error.field);

  it('accepts a well-formed event and refuses what upstream refuses', () => {
    expect(validateEventsV1Create(valid)).toEqual([]);
    const { eventTime: _eventTime, ...withoutTime } = valid;
    expect(fields(validateEventsV1Create(withoutTime as KubeObject))).toContain('eventTime');
    expect(
      fields(validateEventsV1Create({ ...valid, reportingComponent: '', action: '', reportingInstance: '' })),
    ).toEqual(['reportingController', 'reportingInstance', 'action']);
    expect(validateEventsV1Create({ ...valid, type: 'Odd' })).toEqual([
      { field: 'type', type: 'FieldValueInvalid', value: '', detail: 'has invalid value: Odd' },
    ]);
    expect(fields(validateEventsV1Create({ ...valid, message: 'x'.repeat(1025) }))).toEqual(['message']);
    expect(
      fields(
        validateEventsV1Create({
          ...valid,
          count: 1,
          source: { host: 'h' },
          lastTimestamp: '2026-01-01T00:00:00Z',
        }),
      ),
    ).toEqual(['lastTimestamp', 'count', 'source']);
    expect(fields(validateEventsV1Create({ ...valid, series: { count: 1 } }))).toEqual([
      'series.count',
      'series.lastObservedTime',
    ]);
  });

  it('keeps fields immutable on update, and validates a changed series', () => {
    expect(
      validateEventsV1Update({ ...valid, metadata: { ...valid.metadata, labels: { a: 'b' } } }, valid),
    ).toEqual([]);
    expect(
      fields(
        validateEventsV1Update({ ...valid, message: 'other', reportingComponent: 'example.com/d' }, valid),
      ),
    ).toEqual(['message', 'reportingController']);
    expect(
      fields(
        validateEventsV1Update(
          { ...valid, series: { count: 1, lastObservedTime: '2026-01-02T03:06:00.000000Z' } },
          valid,
        ),
      ),
    ).toEqual(['series.count']);
  });
});
