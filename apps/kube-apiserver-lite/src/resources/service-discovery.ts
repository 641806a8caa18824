import { Type, kindSchema, nameIsDNSLabel, type KindDefinition, type KubeObject, withFieldDescriptions } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { conditionsSchema, objectReferenceSchema, stringMapSchema } from './common-schemas.js';
import { endpointSliceDescription, endpointSliceDescriptions } from './discovery-descriptions.js';
import { serviceDescription, serviceDescriptions } from './service-descriptions.js';
import { defaultServicePorts, validateService } from './service-validation.js';
import { validateEndpointSlice, validateEndpointSliceUpdate } from './endpoint-slice-validation.js';

// Core v1 Services and discovery.k8s.io/v1 EndpointSlices: no proxying and
// no endpoint controller (cluster IPs and node ports: service-allocation-strategy.ts). The aggregator resolves an APIService's service through them.

const discovery = 'discovery.k8s.io';
const strings = () => Type.Optional(Type.Array(Type.String()));
const protocol = () => Type.Optional(Type.String({ default: 'TCP' }));

const servicePort = Type.Object({
  name: Type.Optional(Type.String()),
  protocol: protocol(),
  appProtocol: Type.Optional(Type.String()),
  port: Type.Integer(),
  targetPort: Type.Optional(
    Type.Union([Type.Integer(), Type.String()], { 'x-kubernetes-int-or-string': true }),
  ),
  nodePort: Type.Optional(Type.Integer()),
});

const endpointPort = Type.Object({
  name: Type.Optional(Type.String()),
  protocol: protocol(),
  appProtocol: Type.Optional(Type.String()),
  port: Type.Optional(Type.Integer()),
});

/** The kinds: v1 Service and discovery.k8s.io/v1 EndpointSlice. */
export const serviceDiscoveryKinds: KindDefinition[] = [
  {
    group: '',
    version: 'v1',
    kind: 'Service',
    schema: withFieldDescriptions(
      kindSchema({
        group: '',
        version: 'v1',
        kind: 'Service',
        description: serviceDescription,
        spec: Type.Object({
          type: Type.Optional(Type.String({ default: 'ClusterIP' })),
          ports: Type.Optional(
            Type.Array(servicePort, {
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['port', 'protocol'],
            }),
          ),
          selector: stringMapSchema(),
          clusterIP: Type.Optional(Type.String()),
          clusterIPs: strings(),
          externalName: Type.Optional(Type.String()),
          externalIPs: strings(),
          sessionAffinity: Type.Optional(Type.String({ default: 'None' })),
          ipFamilies: strings(),
          ipFamilyPolicy: Type.Optional(Type.String()),
          internalTrafficPolicy: Type.Optional(Type.String()),
          externalTrafficPolicy: Type.Optional(Type.String()),
          allocateLoadBalancerNodePorts: Type.Optional(Type.Boolean()),
          loadBalancerClass: Type.Optional(Type.String()),
          loadBalancerIP: Type.Optional(Type.String()),
          loadBalancerSourceRanges: strings(),
          healthCheckNodePort: Type.Optional(Type.Integer({ format: 'int32' })),
          sessionAffinityConfig: Type.Optional(
            Type.Object({
              clientIP: Type.Optional(
                Type.Object({ timeoutSeconds: Type.Optional(Type.Integer({ format: 'int32' })) }),
              ),
            }),
          ),
          trafficDistribution: Type.Optional(Type.String()),
          publishNotReadyAddresses: Type.Optional(Type.Boolean()),
        }),
        status: Type.Object({
          loadBalancer: Type.Optional(
            Type.Object({
              ingress: Type.Optional(
                Type.Array(
                  Type.Object({
                    ip: Type.Optional(Type.String()),
                    hostname: Type.Optional(Type.String()),
                    ipMode: Type.Optional(Type.String()),
                    ports: Type.Optional(
                      Type.Array(
                        Type.Object({
                          port: Type.Integer(),
                          protocol: Type.String(),
                          error: Type.Optional(Type.String()),
                        }),
                        { 'x-kubernetes-list-type': 'atomic' },
                      ),
                    ),
                  }),
                  { 'x-kubernetes-list-type': 'atomic' },
                ),
              ),
            }),
          ),
          conditions: conditionsSchema(),
        }),
      }),
      serviceDescriptions,
    ),
  },
  {
    group: discovery,
    version: 'v1',
    kind: 'EndpointSlice',
    schema: withFieldDescriptions(
      kindSchema({
        group: discovery,
        version: 'v1',
        kind: 'EndpointSlice',
        description: endpointSliceDescription,
        properties: {
          addressType: Type.String(),
          endpoints: Type.Array(
            Type.Object({
              addresses: Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' }),
              conditions: Type.Optional(
                Type.Object({
                  ready: Type.Optional(Type.Boolean()),
                  serving: Type.Optional(Type.Boolean()),
                  terminating: Type.Optional(Type.Boolean()),
                }),
              ),
              hostname: Type.Optional(Type.String()),
              nodeName: Type.Optional(Type.String()),
              zone: Type.Optional(Type.String()),
              targetRef: Type.Optional(objectReferenceSchema),
              hints: Type.Optional(
                Type.Object({
                  forZones: Type.Optional(Type.Array(Type.Object({ name: Type.String() }), { 'x-kubernetes-list-type': 'atomic' })),
                  forNodes: Type.Optional(Type.Array(Type.Object({ name: Type.String() }), { 'x-kubernetes-list-type': 'atomic' })),
                }),
              ),
            }),
            { 'x-kubernetes-list-type': 'atomic' },
          ),
          ports: Type.Optional(Type.Array(endpointPort, { 'x-kubernetes-list-type': 'atomic' })),
        },
      }),
      endpointSliceDescriptions,
    ),
  },
];

interface ServiceSpec {
  type?: string;
  ports?: Array<{ port: number; nodePort?: number; protocol?: string }>;
  clusterIP?: string;
  externalName?: string;
  externalIPs?: string[];
}

const spec = (object: KubeObject) => (object['spec'] ?? {}) as ServiceSpec;

function servicePorts(object: KubeObject): string {
  const ports = spec(object).ports ?? [];
  if (!ports.length) return '<none>';
  return ports
    .map((port) => `${port.port}${port.nodePort ? `:${port.nodePort}` : ''}/${port.protocol ?? 'TCP'}`)
    .join(',');
}

/** kubectl's SELECTOR of a Service (`-o wide`): `key=value` pairs sorted by key, as upstream's FormatLabels. */
function serviceSelector(object: KubeObject): string {
  const selector = (object['spec'] as { selector?: Record<string, string> } | undefined)?.selector ?? {};
  const pairs = Object.keys(selector)
    .sort()
    .map((key) => `${key}=${selector[key]}`);
  return pairs.join(',') || '<none>';
}

/** kubectl's EXTERNAL-IP of a Service, as upstream's printer: `<pending>` for a LoadBalancer without ingress. */
function serviceExternalIP(object: KubeObject): string {
  const { type, externalIPs = [], externalName } = spec(object);
  const ingress =
    (
      object['status'] as
        { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> } } | undefined
    )?.loadBalancer?.ingress ?? [];
  switch (type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.join(',') || '<none>';
    case 'LoadBalancer': {
      const addresses = [...ingress.flatMap((entry) => entry.ip || entry.hostname || []), ...externalIPs];
      return addresses.join(',') || '<pending>';
    }
    case 'ExternalName':
      return externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** Storage-only `services` (v1) and `endpointslices` (discovery.k8s.io/v1). */
export const serviceDiscoveryResources: ResourceDefinition[] = [
  {
    group: '',
    resource: 'services',
    tracksGeneration: false,
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    versions: ['v1'],
    // As upstream's service storage: no DeleteCollection.
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: { status: true },
    nameValidator: nameIsDNSLabel,
    // Upstream's service store returns the deleted Service.
    printerColumns: [
      { name: 'Type', type: 'string', jsonPath: '.spec.type' },
      {
        name: 'Cluster-IP',
        type: 'string',
        jsonPath: '.spec.clusterIP',
        cell: (object) => spec(object).clusterIP || '<none>',
      },
      {
        name: 'External-IP',
        type: 'string',
        jsonPath: '.spec.externalIPs',
        cell: serviceExternalIP,
      },
      { name: 'Port(s)', type: 'string', jsonPath: '.spec.ports', cell: servicePorts },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      { name: 'Selector', type: 'string', priority: 1, jsonPath: '.spec.selector', cell: serviceSelector },
    ],
    strategy: {
      prepareForCreate: defaultServicePorts,
      prepareForUpdate: defaultServicePorts,
      validate: validateService,
      validateUpdate: validateService,
    },
  },
  {
    group: discovery,
    resource: 'endpointslices',
    returnDeletedObject: false,
    kind: 'EndpointSlice',
    namespaced: true,
    versions: ['v1'],
    printerColumns: [
      { name: 'AddressType', type: 'string', jsonPath: '.addressType' },
      {
        name: 'Ports',
        type: 'string',
        jsonPath: '.ports',
        cell: (object) =>
          ((object['ports'] as Array<{ port?: number }> | undefined) ?? [])
            .map((port) => port.port ?? '<unset>')
            .join(',') || '<unset>',
      },
      {
        name: 'Endpoints',
        type: 'string',
        jsonPath: '.endpoints',
        cell: (object) =>
          ((object['endpoints'] as Array<{ addresses: string[] }> | undefined) ?? [])
            .flatMap((endpoint) => endpoint.addresses)
            .join(',') || '<unset>',
      },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: {
      validate: validateEndpointSlice,
      validateUpdate: validateEndpointSliceUpdate,
    },
  },
];
