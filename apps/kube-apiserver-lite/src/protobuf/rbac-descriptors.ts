/**
 * Protobuf descriptors of rbac.authorization.k8s.io/v1.
 * Field numbers from k8s.io/api/rbac/v1/generated.proto.
 */
import {
  labelSelectorDescriptor,
  objectMetaDescriptor,
  type ProtobufMessageDescriptor,
} from '@kapi/apimachinery';
import { field, keep, message, repeatedField } from './descriptor-helpers.js';

/** rbac/v1 PolicyRule. */
export const policyRuleDescriptor: ProtobufMessageDescriptor = message('PolicyRule', {
  1: repeatedField('verbs', 'string'),
  2: repeatedField('apiGroups', 'string'),
  3: repeatedField('resources', 'string'),
  4: repeatedField('resourceNames', 'string'),
  5: repeatedField('nonResourceURLs', 'string'),
});

/** rbac/v1 Subject. */
export const subjectDescriptor: ProtobufMessageDescriptor = message('Subject', {
  1: field('kind', 'string', keep),
  2: field('apiGroup', 'string'),
  3: field('name', 'string', keep),
  4: field('namespace', 'string'),
});

/** rbac/v1 RoleRef. */
export const roleRefDescriptor: ProtobufMessageDescriptor = message('RoleRef', {
  1: field('apiGroup', 'string', keep),
  2: field('kind', 'string', keep),
  3: field('name', 'string', keep),
});

/** rbac/v1 AggregationRule. */
export const aggregationRuleDescriptor: ProtobufMessageDescriptor = message('AggregationRule', {
  1: repeatedField('clusterRoleSelectors', labelSelectorDescriptor),
});

/** rbac/v1 Role. */
export const roleDescriptor: ProtobufMessageDescriptor = message('Role', {
  1: field('metadata', objectMetaDescriptor),
  2: repeatedField('rules', policyRuleDescriptor),
});

/** rbac/v1 ClusterRole. */
export const clusterRoleDescriptor: ProtobufMessageDescriptor = message('ClusterRole', {
  1: field('metadata', objectMetaDescriptor),
  2: repeatedField('rules', policyRuleDescriptor),
  3: field('aggregationRule', aggregationRuleDescriptor),
});

/** rbac/v1 RoleBinding. */
export const roleBindingDescriptor: ProtobufMessageDescriptor = message('RoleBinding', {
  1: field('metadata', objectMetaDescriptor),
  2: repeatedField('subjects', subjectDescriptor),
  3: field('roleRef', roleRefDescriptor),
});

/** rbac/v1 ClusterRoleBinding. */
export const clusterRoleBindingDescriptor: ProtobufMessageDescriptor = message('ClusterRoleBinding', {
  1: field('metadata', objectMetaDescriptor),
  2: repeatedField('subjects', subjectDescriptor),
  3: field('roleRef', roleRefDescriptor),
});
