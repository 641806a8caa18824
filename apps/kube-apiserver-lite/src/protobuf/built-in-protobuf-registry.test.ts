/**
 * Kinds kubectl has no imperative command for (Lease, Event, autoscaling/v2 HPA, SubjectAccessReview,
 * DeleteOptions): bodies built by hand with upstream's field numbers, as client-go would encode them.
 */
import { describe, expect, it } from 'vitest';
import { StatusError } from '@kapi/apimachinery';
import { builtInProtobufRegistry, createBuiltInProtobufRegistry } from './built-in-protobuf-registry.js';

type Bytes = number[];

function varint(value: number): Bytes {
  let remaining = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    const low = Number(remaining & 0x7fn);
    remaining >>= 7n;
    out.push(remaining > 0n ? low | 0x80 : low);
  } while (remaining > 0n);
  return out;
}
const int = (fieldNumber: number, value: number | boolean): Bytes => [
  ...varint(fieldNumber << 3),
  ...varint(Number(value)),
];
const nested = (fieldNumber: number, ...parts: Bytes[]): Bytes => {
  const payload = parts.flat();
  return [...varint((fieldNumber << 3) | 2), ...varint(payload.length), ...payload];
};
const text = (fieldNumber: number, value: string): Bytes =>
  nested(fieldNumber, [...new TextEncoder().encode(value)]);
const entry = (fieldNumber: number, key: string, value: Bytes): Bytes =>
  nested(fieldNumber, text(1, key), value);
const time = (fieldNumber: number, seconds: number, nanos = 0): Bytes =>
  nested(fieldNumber, int(1, seconds), nanos ? int(2, nanos) : []);
const quantity = (fieldNumber: number, value: string): Bytes => nested(fieldNumber, text(1, value));

/** `k8s\0` + runtime.Unknown { typeMeta, raw, contentEncoding, contentType }. */
function envelope(apiVersion: string, kind: string, ...raw: Bytes[]): Uint8Array {
  return Uint8Array.from([
    0x6b,
    0x38,
    0x73,
    0x00,
    ...nested(1, text(1, apiVersion), text(2, kind)),
    ...nested(2, ...raw),
    ...text(3, ''),
    ...text(4, ''),
  ]);
}

/** ObjectMeta as gogo-protobuf writes it: every non-pointer field present, zero or not. */
function objectMeta(name: string, namespace = ''): Bytes {
  return nested(
    1,
    text(1, name),
    text(2, ''),
    text(3, namespace),
    text(4, ''),
    text(5, ''),
    text(6, ''),
    int(7, 0),
    nested(8),
  );
}

describe('built-in protobuf registry', () => {
  it('knows every kind the app serves', () => {
    const registry = createBuiltInProtobufRegistry();
    for (const [apiVersion, kind] of [
      ['v1', 'ConfigMap'],
      ['v1', 'Secret'],
      ['v1', 'Namespace'],
      ['v1', 'ServiceAccount'],
      ['v1', 'Event'],
      ['events.k8s.io/v1', 'Event'],
      ['v1', 'Service'],
      ['discovery.k8s.io/v1', 'EndpointSlice'],
      ['v1', 'Endpoints'],
      ['rbac.authorization.k8s.io/v1', 'Role'],
      ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
      ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
      ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
      ['coordination.k8s.io/v1', 'Lease'],
      ['autoscaling/v1', 'HorizontalPodAutoscaler'],
      ['autoscaling/v2', 'HorizontalPodAutoscaler'],
      ['authorization.k8s.io/v1', 'SelfSubjectAccessReview'],
      ['authorization.k8s.io/v1', 'SelfSubjectRulesReview'],
      ['authorization.k8s.io/v1', 'SubjectAccessReview'],
      ['authorization.k8s.io/v1', 'LocalSubjectAccessReview'],
      ['v1', 'DeleteOptions'],
      ['coordination.k8s.io/v1', 'DeleteOptions'],
    ] as const) {
      expect(registry.has(apiVersion, kind), `${apiVersion} ${kind}`).toBe(true);
    }
    expect(registry.has('apps/v1', 'Deployment')).toBe(false);
  });

  it('decodes a Lease (pointer fields keep zero values, MicroTime has microseconds)', () => {
    const body = envelope(
      'coordination.k8s.io/v1',
      'Lease',
      objectMeta('kube-scheduler', 'kube-system'),
      nested(
        2,
        text(1, 'node-1_abc'),
        int(2, 15),
        time(3, 1_700_000_000, 123_456_000),
        time(4, 1_700_000_010, 5_000),
        int(5, 0),
      ),
    );
    expect(builtInProtobufRegistry.decode(body)).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'kube-scheduler', namespace: 'kube-system' },
      spec: {
        holderIdentity: 'node-1_abc',
        leaseDurationSeconds: 15,
        acquireTime: '2023-11-14T22:13:20.123456Z',
        renewTime: '2023-11-14T22:13:30.000005Z',
        leaseTransitions: 0,
      },
    });
  });

  it('decodes a discovery.k8s.io/v1 EndpointSlice (pointer fields keep zero values)', () => {
    const body = envelope(
      'discovery.k8s.io/v1',
      'EndpointSlice',
      objectMeta('api-1', 'wardle'),
      nested(2, text(1, '127.0.0.1'), nested(2, int(1, true), int(3, false)), text(6, 'node-1')),
      nested(3, text(1, 'https'), text(2, 'TCP'), int(3, 8443)),
      text(4, 'IPv4'),
    );
    expect(builtInProtobufRegistry.decode(body)).toEqual({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'api-1', namespace: 'wardle' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true, terminating: false }, nodeName: 'node-1' }],
      ports: [{ name: 'https', protocol: 'TCP', port: 8443 }],
    });
  });

  it('decodes a core/v1 Endpoints (as the endpoints controllers of client-go write it)', () => {
    const address = (ip: string, node?: string) => [...text(1, ip), ...text(3, ''), ...(node ? text(4, node) : [])];
    const body = envelope(
      'v1',
      'Endpoints',
      objectMeta('api', 'wardle'),
      nested(
        2,
        nested(1, address('10.1.0.1', 'node-1')),
        nested(2, address('10.1.0.2')),
        nested(3, text(1, 'https'), int(2, 8443), text(3, 'TCP'), text(4, 'kubernetes.io/h2c')),
      ),
    );
    expect(builtInProtobufRegistry.decode(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'api', namespace: 'wardle' },
      subsets: [
        {
          addresses: [{ ip: '10.1.0.1', nodeName: 'node-1' }],
          notReadyAddresses: [{ ip: '10.1.0.2' }],
          ports: [{ name: 'https', port: 8443, protocol: 'TCP', appProtocol: 'kubernetes.io/h2c' }],
        },
      ],
    });
  });

  it('decodes a core/v1 Event', () => {
    const involvedObject = nested(
      2,
      text(1, 'Pod'),
      text(2, 'default'),
      text(3, 'web-1'),
      text(4, 'uid-1'),
      text(5, 'v1'),
      text(6, ''),
      text(7, ''),
    );
    const body = envelope(
      'v1',
      'Event',
      objectMeta('web-1.17', 'default'),
      involvedObject,
      text(3, 'Started'),
      text(4, 'Started container web'),
      nested(5, text(1, 'kubelet'), text(2, 'node-1')),
      time(6, 1_700_000_000),
      time(7, 1_700_000_060),
      int(8, 2),
      text(9, 'Normal'),
      nested(10),
      nested(11, int(1, 2), time(2, 1_700_000_060, 1_000)),
      text(12, ''),
      text(14, ''),
      text(15, ''),
    );
    expect(builtInProtobufRegistry.decode(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web-1.17', namespace: 'default' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'uid-1', apiVersion: 'v1' },
      reason: 'Started',
      message: 'Started container web',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2023-11-14T22:13:20Z',
      lastTimestamp: '2023-11-14T22:14:20Z',
      count: 2,
      type: 'Normal',
      series: { count: 2, lastObservedTime: '2023-11-14T22:14:20.000001Z' },
      reportingComponent: '',
      reportingInstance: '',
    });
  });

  it('decodes an events.k8s.io/v1 Event (as client-go events library and kube-scheduler send it)', () => {
    const body = envelope(
      'events.k8s.io/v1',
      'Event',
      objectMeta('web-1.18', 'default'),
      time(2, 1_700_000_000, 123_456_000),
      nested(3, int(1, 2), time(2, 1_700_000_060, 1_000)),
      text(4, 'default-scheduler'),
      text(5, 'default-scheduler-node-1'),
      text(6, 'Binding'),
      text(7, 'Scheduled'),
      nested(8, text(1, 'Pod'), text(2, 'default'), text(3, 'web-1')),
      text(10, 'Successfully assigned default/web-1 to node-1'),
      text(11, 'Normal'),
      nested(12),
      int(15, 0),
    );
    expect(builtInProtobufRegistry.decode(body)).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'web-1.18', namespace: 'default' },
      eventTime: '2023-11-14T22:13:20.123456Z',
      series: { count: 2, lastObservedTime: '2023-11-14T22:14:20.000001Z' },
      reportingController: 'default-scheduler',
      reportingInstance: 'default-scheduler-node-1',
      action: 'Binding',
      reason: 'Scheduled',
      regarding: { kind: 'Pod', namespace: 'default', name: 'web-1' },
      note: 'Successfully assigned default/web-1 to node-1',
      type: 'Normal',
      deprecatedSource: {},
    });
  });

  it('decodes an autoscaling/v2 HorizontalPodAutoscaler with metrics, behavior and status', () => {
    const target = (type: string, ...rest: Bytes[]) => nested(2, text(1, type), ...rest);
    const body = envelope(
      'autoscaling/v2',
      'HorizontalPodAutoscaler',
      objectMeta('web', 'default'),
      nested(
        2,
        nested(1, text(1, 'Deployment'), text(2, 'web'), text(3, 'apps/v1')),
        int(2, 1),
        int(3, 10),
        nested(4, text(1, 'Resource'), nested(4, text(1, 'cpu'), target('Utilization', int(4, 70)))),
        nested(
          4,
          text(1, 'Pods'),
          nested(3, nested(1, text(1, 'qps')), target('AverageValue', quantity(3, '100m'))),
        ),
        nested(
          4,
          text(1, 'External'),
          nested(
            5,
            nested(1, text(1, 'queue'), nested(2, entry(1, 'queue', text(2, 'jobs')))),
            target('Value', quantity(2, '30')),
          ),
        ),
        nested(
          5,
          nested(
            2,
            int(3, 300),
            text(1, 'Min'),
            nested(2, text(1, 'Percent'), int(2, 10), int(3, 60)),
            quantity(4, '50m'),
          ),
        ),
      ),
      nested(
        3,
        int(1, 3),
        time(2, 1_700_000_000),
        int(3, 2),
        int(4, 4),
        nested(5, text(1, 'Resource'), nested(4, text(1, 'cpu'), nested(2, quantity(2, '250m'), int(3, 85)))),
        nested(
          6,
          text(1, 'AbleToScale'),
          text(2, 'True'),
          time(3, 1_700_000_000),
          text(4, 'ReadyForNewScale'),
          text(5, ''),
        ),
      ),
    );
    expect(builtInProtobufRegistry.decode(body)).toEqual({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
        minReplicas: 1,
        maxReplicas: 10,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
          },
          {
            type: 'Pods',
            pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '100m' } },
          },
          {
            type: 'External',
            external: {
              metric: { name: 'queue', selector: { matchLabels: { queue: 'jobs' } } },
              target: { type: 'Value', value: '30' },
            },
          },
        ],
        behavior: {
          scaleDown: {
            stabilizationWindowSeconds: 300,
            selectPolicy: 'Min',
            policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }],
            tolerance: '50m',
          },
        },
      },
      status: {
        observedGeneration: 3,
        lastScaleTime: '2023-11-14T22:13:20Z',
        currentReplicas: 2,
        desiredReplicas: 4,
        currentMetrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 85 } },
          },
        ],
        conditions: [
          {
            type: 'AbleToScale',
            status: 'True',
            lastTransitionTime: '2023-11-14T22:13:20Z',
            reason: 'ReadyForNewScale',
          },
        ],
      },
    });
  });

  it('decodes a SubjectAccessReview with groups and extra (ExtraValue is a JSON array)', () => {
    const body = envelope(
      'authorization.k8s.io/v1',
      'SubjectAccessReview',
      objectMeta(''),
      nested(
        2,
        nested(
          1,
          text(1, 'team-a'),
          text(2, 'list'),
          text(3, 'apps'),
          text(4, 'v1'),
          text(5, 'deployments'),
          text(6, ''),
          text(7, ''),
        ),
        text(3, 'alice'),
        text(4, 'devs'),
        text(4, 'system:authenticated'),
        entry(5, 'scopes', nested(2, text(1, 'read'), text(1, 'write'))),
        text(6, 'uid-alice'),
      ),
      nested(3, int(1, false), text(2, ''), text(3, '')),
    );
    expect(builtInProtobufRegistry.decode(body)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: {
        resourceAttributes: {
          namespace: 'team-a',
          verb: 'list',
          group: 'apps',
          version: 'v1',
          resource: 'deployments',
        },
        user: 'alice',
        groups: ['devs', 'system:authenticated'],
        extra: { scopes: ['read', 'write'] },
        uid: 'uid-alice',
      },
      status: { allowed: false },
    });
  });

  it('decodes DeleteOptions sent to a group version', () => {
    const body = envelope(
      'rbac.authorization.k8s.io/v1',
      'DeleteOptions',
      int(1, 30),
      nested(2, text(2, '42')),
      text(4, 'Background'),
    );
    expect(builtInProtobufRegistry.decode(body)).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 30,
      preconditions: { resourceVersion: '42' },
      propagationPolicy: 'Background',
    });
  });

  it('answers 400 for kinds it does not serve', () => {
    try {
      builtInProtobufRegistry.decode(envelope('apps/v1', 'Deployment', objectMeta('web')));
      expect.unreachable('decode should throw');
    } catch (error) {
      expect(StatusError.isInstance(error) && error.code).toBe(400);
    }
  });
});
