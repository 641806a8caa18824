import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient } from '@kapi/client';
import { kubectl, startServer, type TestServer } from './harness.js';

// events.k8s.io/v1 Events as upstream: the same objects as core/v1 events (one storage, core/v1 encoding),
// under the new field names, with the strict validation of ValidateEventCreate for the new API.
let server: TestServer;
let admin: RestClient;
let core: k8s.CoreV1Api;
let events: k8s.EventsV1Api;
const namespace = 'events-v1';

beforeAll(async () => {
  server = await startServer();
  admin = server.client();
  const config = new k8s.KubeConfig();
  config.loadFromFile(server.kubeconfig);
  core = config.makeApiClient(k8s.CoreV1Api);
  events = config.makeApiClient(k8s.EventsV1Api);
  await kubectl(server, ['create', 'ns', namespace]);
});

afterAll(async () => {
  await server?.stop();
});

const newEvent = (name: string, overrides: Partial<k8s.EventsV1Event> = {}): k8s.EventsV1Event => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name, namespace },
  // A MicroTime (six fractional digits), as upstream's decoder and `kubectl events` require.
  eventTime: new k8s.V1MicroTime('2026-01-02T03:04:05.000Z'),
  reportingController: 'example.com/widget-controller',
  reportingInstance: 'widget-controller-1',
  action: 'Scaling',
  reason: 'ScaledUp',
  type: 'Normal',
  note: 'scaled widget w1 to 3',
  regarding: { apiVersion: 'v1', kind: 'ConfigMap', name: 'w1', namespace },
  ...overrides,
});

const post = (path: string, body: unknown) =>
  admin.raw({ method: 'POST', path, body }).then((response) => ({
    code: response.statusCode,
    body: JSON.parse(response.body.toString()) as { message?: string; metadata?: { name?: string } },
  }));
const eventsPath = `/apis/events.k8s.io/v1/namespaces/${namespace}/events`;

describe('events.k8s.io/v1 events', () => {
  it('are in discovery beside core/v1 events, with the core storageVersionHash', async () => {
    const list = await admin.request<{
      resources: Array<{
        name: string;
        namespaced: boolean;
        kind: string;
        verbs: string[];
        storageVersionHash?: string;
        shortNames?: string[];
      }>;
    }>({
      method: 'GET',
      path: '/apis/events.k8s.io/v1',
    });
    const resource = list.resources.find((entry) => entry.name === 'events');
    expect(resource).toMatchObject({ namespaced: true, kind: 'Event', shortNames: ['ev'] });
    expect(resource?.verbs).toEqual(
      expect.arrayContaining([
        'create',
        'delete',
        'deletecollection',
        'get',
        'list',
        'patch',
        'update',
        'watch',
      ]),
    );
    const coreList = await admin.request<{ resources: Array<{ name: string; storageVersionHash?: string }> }>(
      { method: 'GET', path: '/api/v1' },
    );
    expect(resource?.storageVersionHash).toBe(
      coreList.resources.find((entry) => entry.name === 'events')?.storageVersionHash,
    );
    expect(await kubectl(server, ['api-resources', '--api-group=events.k8s.io', '--no-headers'])).toMatch(
      /^events\s+ev\s+events\.k8s\.io\/v1\s+true\s+Event\s*$/m,
    );
  });

  it('an event created through EventsV1Api is the core/v1 event with the old field names', async () => {
    const created = await events.createNamespacedEvent({ namespace, body: newEvent('scaled') });
    expect(created).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      note: 'scaled widget w1 to 3',
      reportingController: 'example.com/widget-controller',
    });

    const legacy = await core.readNamespacedEvent({ name: 'scaled', namespace });
    expect(legacy.metadata.uid).toBe(created.metadata?.uid);
    expect(legacy).toMatchObject({
      message: 'scaled widget w1 to 3',
      reason: 'ScaledUp',
      type: 'Normal',
      action: 'Scaling',
      reportingComponent: 'example.com/widget-controller',
      reportingInstance: 'widget-controller-1',
      involvedObject: { kind: 'ConfigMap', name: 'w1', namespace },
    });
    expect(new Date(String(legacy.eventTime)).toISOString()).toBe('2026-01-02T03:04:05.000Z');

    // kubectl reads the same object through both APIs; `kubectl events` (core/v1) shows it.
    const asJson = JSON.parse(
      await kubectl(server, ['get', 'events.v1.events.k8s.io', 'scaled', '-n', namespace, '-o', 'json']),
    ) as Record<string, unknown>;
    expect(asJson).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      note: 'scaled widget w1 to 3',
      regarding: { name: 'w1' },
    });
    expect(asJson).not.toHaveProperty('message');
    const table = await kubectl(server, ['get', 'events.v1.events.k8s.io', '-n', namespace]);
    expect(table).toMatch(/ScaledUp\s+configmap\/w1\s+scaled widget w1 to 3/);
    const shown = await kubectl(server, ['events', '-n', namespace]);
    expect(shown).toMatch(/Normal\s+ScaledUp\s+ConfigMap\/w1\s+scaled widget w1 to 3/);
  });

  it('a core/v1 event reads through events.k8s.io/v1 with the deprecated fields', async () => {
    await core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: 'legacy' },
        involvedObject: { kind: 'ConfigMap', name: 'w2', namespace },
        reason: 'Old',
        message: 'from the old API',
        source: { component: 'kubelet', host: 'node-1' },
        firstTimestamp: new Date('2026-01-01T00:00:00Z'),
        lastTimestamp: new Date('2026-01-01T00:01:00Z'),
        count: 4,
        type: 'Warning',
      },
    });
    const read = await events.readNamespacedEvent({ name: 'legacy', namespace });
    expect(read).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      note: 'from the old API',
      reason: 'Old',
      type: 'Warning',
      regarding: { kind: 'ConfigMap', name: 'w2' },
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedCount: 4,
    });
    expect(read.deprecatedLastTimestamp?.toISOString()).toBe('2026-01-01T00:01:00.000Z');
    const list = await events.listNamespacedEvent({ namespace, fieldSelector: 'regarding.name=w2' });
    expect(list.items.map((item) => item.metadata?.name)).toEqual(['legacy']);
    const byController = await events.listNamespacedEvent({
      namespace,
      fieldSelector: 'reportingController=example.com/widget-controller',
    });
    expect(byController.items.map((item) => item.metadata?.name)).toEqual(['scaled']);
  });

  it('a watch on events.k8s.io/v1 sees an event written through core/v1', async () => {
    const list = await admin.request<{ metadata: { resourceVersion: string } }>({
      method: 'GET',
      path: eventsPath,
    });
    const watch = await admin.watch({
      path: eventsPath,
      query: { resourceVersion: list.metadata.resourceVersion },
    });
    await core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: 'watched' },
        involvedObject: { kind: 'ConfigMap', name: 'w3', namespace },
        reason: 'Seen',
        message: 'hello',
      },
    });
    for await (const event of watch) {
      const object = event.object as { apiVersion?: string; metadata: { name?: string }; note?: string };
      if (object.metadata.name !== 'watched') continue;
      expect(event.type).toBe('ADDED');
      expect(object).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'hello' });
      break;
    }
    watch.stop();
  });

  it('validates creates as upstream ValidateEventCreate for the new API', async () => {
    const cases: Array<[string, k8s.EventsV1Event, string]> = [
      [
        'no eventTime',
        { ...newEvent('no-time'), eventTime: undefined as unknown as Date },
        'eventTime: Required value',
      ],
      [
        'no reportingController',
        newEvent('no-controller', { reportingController: '' }),
        'reportingController: Required value',
      ],
      [
        'no reportingInstance',
        newEvent('no-instance', { reportingInstance: '' }),
        'reportingInstance: Required value',
      ],
      ['no action', newEvent('no-action', { action: '' }), 'action: Required value'],
      [
        'a bad type',
        newEvent('bad-type', { type: 'Odd' }),
        'type: Invalid value: "": has invalid value: Odd',
      ],
      [
        'a long note',
        newEvent('long-note', { note: 'x'.repeat(1025) }),
        'message: Invalid value: "": can have at most 1024 characters',
      ],
      [
        'a deprecated count',
        newEvent('counted', { deprecatedCount: 2 }),
        'count: Invalid value: "": needs to be unset',
      ],
      [
        'a short series',
        newEvent('series', { series: { count: 1, lastObservedTime: new k8s.V1MicroTime() } }),
        'series.count: Invalid value: "": should be at least 2',
      ],
    ];
    for (const [, body, message] of cases) {
      const answer = await post(eventsPath, body);
      expect(answer.code).toBe(422);
      expect(answer.body.message).toContain(`Event.events.k8s.io "${body.metadata?.name ?? ''}" is invalid`);
      expect(answer.body.message).toContain(message);
    }
    // The same object without eventTime is a valid legacy event through core/v1.
    const legacy = await post(`/api/v1/namespaces/${namespace}/events`, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'no-time' },
      involvedObject: { kind: 'ConfigMap', name: 'w1', namespace },
      type: 'Odd',
    });
    expect(legacy.code).toBe(201);
  });

  it('refuses an update through events.k8s.io/v1 that changes an immutable field', async () => {
    const current = await events.readNamespacedEvent({ name: 'scaled', namespace });
    const answer = await admin.raw({
      method: 'PUT',
      path: `${eventsPath}/scaled`,
      body: { ...current, note: 'changed' },
    });
    expect(answer.statusCode).toBe(422);
    expect(answer.body.toString()).toContain('field is immutable');
    const series = await events.replaceNamespacedEvent({
      name: 'scaled',
      namespace,
      body: {
        ...current,
        series: { count: 2, lastObservedTime: new k8s.V1MicroTime('2026-01-02T03:05:00.000Z') },
      },
    });
    expect(series.series?.count).toBe(2);
  });
});
