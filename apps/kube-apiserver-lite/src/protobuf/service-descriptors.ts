/**
 * Protobuf descriptors of core/v1 Service and discovery.k8s.io/v1 EndpointSlice (kubectl's
 * `create service` and client-go send them as protobuf). Field numbers from k8s.io/api
 * core/v1 and discovery/v1 generated.proto.
 */
import {
  conditionDescriptor,
  objectMetaDescriptor,
  type ProtobufMessageDescriptor,
} from '@kapi/apimachinery';
import { objectReferenceDescriptor } from './core-descriptors.js';
import { field, keep, mapField, message, repeatedField } from './descriptor-helpers.js';

/** core/v1 ServicePort. */
export const servicePortDescriptor: ProtobufMessageDescriptor = message('ServicePort', {
  1: field('name', 'string'),
  2: field('protocol', 'string'),
  6: field('appProtocol', 'string', keep),
  3: field('port', 'int32', keep),
  4: field('targetPort', 'intOrString'),
  5: field('nodePort', 'int32'),
});

const clientIPConfigDescriptor = message('ClientIPConfig', { 1: field('timeoutSeconds', 'int32', keep) });
const sessionAffinityConfigDescriptor = message('SessionAffinityConfig', {
  1: field('clientIP', clientIPConfigDescriptor),
});

/** core/v1 ServiceSpec. */
export const serviceSpecDescriptor: ProtobufMessageDescriptor = message('ServiceSpec', {
  1: repeatedField('ports', servicePortDescriptor),
  2: mapField('selector', 'string'),
  3: field('clusterIP', 'string'),
  18: repeatedField('clusterIPs', 'string'),
  4: field('type', 'string'),
  5: repeatedField('externalIPs', 'string'),
  7: field('sessionAffinity', 'string'),
  8: field('loadBalancerIP', 'string'),
  9: repeatedField('loadBalancerSourceRanges', 'string'),
  10: field('externalName', 'string'),
  11: field('externalTrafficPolicy', 'string'),
  12: field('healthCheckNodePort', 'int32'),
  13: field('publishNotReadyAddresses', 'bool'),
  14: field('sessionAffinityConfig', sessionAffinityConfigDescriptor),
  19: repeatedField('ipFamilies', 'string'),
  17: field('ipFamilyPolicy', 'string', keep),
  20: field('allocateLoadBalancerNodePorts', 'bool', keep),
  21: field('loadBalancerClass', 'string', keep),
  22: field('internalTrafficPolicy', 'string', keep),
  23: field('trafficDistribution', 'string', keep),
});

const portStatusDescriptor = message('PortStatus', {
  1: field('port', 'int32', keep),
  2: field('protocol', 'string', keep),
  3: field('error', 'string', keep),
});
const loadBalancerIngressDescriptor = message('LoadBalancerIngress', {
  1: field('ip', 'string'),
  2: field('hostname', 'string'),
  3: field('ipMode', 'string', keep),
  4: repeatedField('ports', portStatusDescriptor),
});

/** core/v1 ServiceStatus. */
export const serviceStatusDescriptor: ProtobufMessageDescriptor = message('ServiceStatus', {
  1: field(
    'loadBalancer',
    message('LoadBalancerStatus', { 1: repeatedField('ingress', loadBalancerIngressDescriptor) }),
  ),
  2: repeatedField('conditions', conditionDescriptor),
});

/** core/v1 Service. */
export const serviceDescriptor: ProtobufMessageDescriptor = message('Service', {
  1: field('metadata', objectMetaDescriptor),
  2: field('spec', serviceSpecDescriptor),
  3: field('status', serviceStatusDescriptor),
});

const endpointConditionsDescriptor = message('EndpointConditions', {
  1: field('ready', 'bool', keep),
  2: field('serving', 'bool', keep),
  3: field('terminating', 'bool', keep),
});
const endpointHintsDescriptor = message('EndpointHints', {
  1: repeatedField('forZones', message('ForZone', { 1: field('name', 'string', keep) })),
  2: repeatedField('forNodes', message('ForNode', { 1: field('name', 'string', keep) })),
});

/** discovery/v1 Endpoint. */
export const endpointDescriptor: ProtobufMessageDescriptor = message('Endpoint', {
  1: repeatedField('addresses', 'string'),
  2: field('conditions', endpointConditionsDescriptor),
  3: field('hostname', 'string', keep),
  4: field('targetRef', objectReferenceDescriptor),
  5: mapField('deprecatedTopology', 'string'),
  6: field('nodeName', 'string', keep),
  7: field('zone', 'string', keep),
  8: field('hints', endpointHintsDescriptor),
});

/** discovery/v1 EndpointPort. */
export const endpointPortDescriptor: ProtobufMessageDescriptor = message('EndpointPort', {
  1: field('name', 'string', keep),
  2: field('protocol', 'string', keep),
  3: field('port', 'int32', keep),
  4: field('appProtocol', 'string', keep),
});

/** discovery/v1 EndpointSlice. */
export const endpointSliceDescriptor: ProtobufMessageDescriptor = message('EndpointSlice', {
  1: field('metadata', objectMetaDescriptor),
  4: field('addressType', 'string', keep),
  2: repeatedField('endpoints', endpointDescriptor),
  3: repeatedField('ports', endpointPortDescriptor),
});

/** core/v1 EndpointAddress. */
const endpointAddressDescriptor = message('EndpointAddress', {
  1: field('ip', 'string'),
  3: field('hostname', 'string'),
  4: field('nodeName', 'string', keep),
  2: field('targetRef', objectReferenceDescriptor),
});

/** core/v1 Endpoints (deprecated since 1.33, still written by client-go controllers as protobuf). */
export const endpointsDescriptor: ProtobufMessageDescriptor = message('Endpoints', {
  1: field('metadata', objectMetaDescriptor),
  2: repeatedField(
    'subsets',
    message('EndpointSubset', {
      1: repeatedField('addresses', endpointAddressDescriptor),
      2: repeatedField('notReadyAddresses', endpointAddressDescriptor),
      3: repeatedField(
        'ports',
        message('CoreEndpointPort', {
          1: field('name', 'string'),
          2: field('port', 'int32', keep),
          3: field('protocol', 'string'),
          4: field('appProtocol', 'string', keep),
        }),
      ),
    }),
  ),
});
