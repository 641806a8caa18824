import { ProtobufRegistry } from '@kapi/apimachinery';
import { selfSubjectReviewDescriptor, tokenRequestDescriptor } from './authentication-descriptors.js';
import {
  selfSubjectAccessReviewDescriptor,
  selfSubjectRulesReviewDescriptor,
  subjectAccessReviewDescriptor,
} from './authorization-descriptors.js';
import { hpaV1Descriptor, hpaV2Descriptor } from './autoscaling-descriptors.js';
import { leaseDescriptor } from './coordination-descriptors.js';
import {
  configMapDescriptor,
  eventDescriptor,
  namespaceDescriptor,
  secretDescriptor,
  serviceAccountDescriptor,
} from './core-descriptors.js';
import { eventsV1EventDescriptor } from './events-descriptors.js';
import {
  clusterRoleBindingDescriptor,
  clusterRoleDescriptor,
  roleBindingDescriptor,
  roleDescriptor,
} from './rbac-descriptors.js';
import { endpointSliceDescriptor, endpointsDescriptor, serviceDescriptor } from './service-descriptors.js';

/**
 * A new registry that decodes the protobuf bodies kubectl and client-go send for the built-in kinds
 * kube-apiserver-lite serves (plus DeleteOptions under any apiVersion).
 */
export function createBuiltInProtobufRegistry(): ProtobufRegistry {
  const rbac = 'rbac.authorization.k8s.io/v1';
  const authorization = 'authorization.k8s.io/v1';
  return new ProtobufRegistry()
    .register('v1', 'ConfigMap', configMapDescriptor)
    .register('v1', 'Secret', secretDescriptor)
    .register('v1', 'Namespace', namespaceDescriptor)
    .register('v1', 'ServiceAccount', serviceAccountDescriptor)
    .register('v1', 'Event', eventDescriptor)
    .register('events.k8s.io/v1', 'Event', eventsV1EventDescriptor)
    .register('v1', 'Service', serviceDescriptor)
    .register('discovery.k8s.io/v1', 'EndpointSlice', endpointSliceDescriptor)
    .register('v1', 'Endpoints', endpointsDescriptor)
    .register(rbac, 'Role', roleDescriptor)
    .register(rbac, 'ClusterRole', clusterRoleDescriptor)
    .register(rbac, 'RoleBinding', roleBindingDescriptor)
    .register(rbac, 'ClusterRoleBinding', clusterRoleBindingDescriptor)
    .register('coordination.k8s.io/v1', 'Lease', leaseDescriptor)
    .register('autoscaling/v1', 'HorizontalPodAutoscaler', hpaV1Descriptor)
    .register('autoscaling/v2', 'HorizontalPodAutoscaler', hpaV2Descriptor)
    .register(authorization, 'SelfSubjectAccessReview', selfSubjectAccessReviewDescriptor)
    .register(authorization, 'SelfSubjectRulesReview', selfSubjectRulesReviewDescriptor)
    .register(authorization, 'SubjectAccessReview', subjectAccessReviewDescriptor)
    .register(authorization, 'LocalSubjectAccessReview', subjectAccessReviewDescriptor)
    .register('authentication.k8s.io/v1', 'SelfSubjectReview', selfSubjectReviewDescriptor)
    .register('authentication.k8s.io/v1', 'TokenRequest', tokenRequestDescriptor);
}

/** A ready registry for the built-in kinds. Shared: do not register more kinds on it; create your own instead. */
export const builtInProtobufRegistry: ProtobufRegistry = createBuiltInProtobufRegistry();
