/**
 * Protobuf descriptors of authorization.k8s.io/v1 reviews.
 * Field numbers from k8s.io/api/authorization/v1/generated.proto.
 */
import {
  labelSelectorRequirementDescriptor,
  objectMetaDescriptor,
  type ProtobufMessageDescriptor,
} from '@kapi/apimachinery';
import { field, keep, mapField, message, repeatedField } from './descriptor-helpers.js';

const fieldSelectorRequirement = message('FieldSelectorRequirement', {
  1: field('key', 'string', keep),
  2: field('operator', 'string', keep),
  3: repeatedField('values', 'string'),
});

const fieldSelectorAttributes = message('FieldSelectorAttributes', {
  1: field('rawSelector', 'string'),
  2: repeatedField('requirements', fieldSelectorRequirement),
});

const labelSelectorAttributes = message('LabelSelectorAttributes', {
  1: field('rawSelector', 'string'),
  2: repeatedField('requirements', labelSelectorRequirementDescriptor),
});

/** authorization/v1 ResourceAttributes. */
export const resourceAttributesDescriptor: ProtobufMessageDescriptor = message('ResourceAttributes', {
  1: field('namespace', 'string'),
  2: field('verb', 'string'),
  3: field('group', 'string'),
  4: field('version', 'string'),
  5: field('resource', 'string'),
  6: field('subresource', 'string'),
  7: field('name', 'string'),
  8: field('fieldSelector', fieldSelectorAttributes),
  9: field('labelSelector', labelSelectorAttributes),
});

/** authorization/v1 NonResourceAttributes. */
export const nonResourceAttributesDescriptor: ProtobufMessageDescriptor = message('NonResourceAttributes', {
  1: field('path', 'string'),
  2: field('verb', 'string'),
});

/** authorization/v1 ExtraValue: `repeated string items = 1`, a JSON array of strings. */
export const extraValueDescriptor: ProtobufMessageDescriptor = message(
  'ExtraValue',
  { 1: repeatedField('items', 'string') },
  { unwrap: 1 },
);

/** authorization/v1 SubjectAccessReviewSpec. */
export const subjectAccessReviewSpecDescriptor: ProtobufMessageDescriptor = message(
  'SubjectAccessReviewSpec',
  {
    1: field('resourceAttributes', resourceAttributesDescriptor),
    2: field('nonResourceAttributes', nonResourceAttributesDescriptor),
    3: field('user', 'string'),
    4: repeatedField('groups', 'string'),
    5: mapField('extra', extraValueDescriptor),
    6: field('uid', 'string'),
  },
);

/** authorization/v1 SelfSubjectAccessReviewSpec. */
export const selfSubjectAccessReviewSpecDescriptor: ProtobufMessageDescriptor = message(
  'SelfSubjectAccessReviewSpec',
  {
    1: field('resourceAttributes', resourceAttributesDescriptor),
    2: field('nonResourceAttributes', nonResourceAttributesDescriptor),
  },
);

/** authorization/v1 SubjectAccessReviewStatus. */
export const subjectAccessReviewStatusDescriptor: ProtobufMessageDescriptor = message(
  'SubjectAccessReviewStatus',
  {
    1: field('allowed', 'bool', keep),
    4: field('denied', 'bool'),
    2: field('reason', 'string'),
    3: field('evaluationError', 'string'),
  },
);

const resourceRule = message('ResourceRule', {
  1: repeatedField('verbs', 'string'),
  2: repeatedField('apiGroups', 'string'),
  3: repeatedField('resources', 'string'),
  4: repeatedField('resourceNames', 'string'),
});

const nonResourceRule = message('NonResourceRule', {
  1: repeatedField('verbs', 'string'),
  2: repeatedField('nonResourceURLs', 'string'),
});

/** authorization/v1 SubjectRulesReviewStatus. */
export const subjectRulesReviewStatusDescriptor: ProtobufMessageDescriptor = message(
  'SubjectRulesReviewStatus',
  {
    1: repeatedField('resourceRules', resourceRule),
    2: repeatedField('nonResourceRules', nonResourceRule),
    3: field('incomplete', 'bool', keep),
    4: field('evaluationError', 'string'),
  },
);

/** authorization/v1 SelfSubjectAccessReview. */
export const selfSubjectAccessReviewDescriptor: ProtobufMessageDescriptor = message(
  'SelfSubjectAccessReview',
  {
    1: field('metadata', objectMetaDescriptor),
    2: field('spec', selfSubjectAccessReviewSpecDescriptor),
    3: field('status', subjectAccessReviewStatusDescriptor),
  },
);

/** authorization/v1 SelfSubjectRulesReview. */
export const selfSubjectRulesReviewDescriptor: ProtobufMessageDescriptor = message('SelfSubjectRulesReview', {
  1: field('metadata', objectMetaDescriptor),
  2: field('spec', message('SelfSubjectRulesReviewSpec', { 1: field('namespace', 'string') })),
  3: field('status', subjectRulesReviewStatusDescriptor),
});

/** authorization/v1 SubjectAccessReview (LocalSubjectAccessReview has the same message). */
export const subjectAccessReviewDescriptor: ProtobufMessageDescriptor = message('SubjectAccessReview', {
  1: field('metadata', objectMetaDescriptor),
  2: field('spec', subjectAccessReviewSpecDescriptor),
  3: field('status', subjectAccessReviewStatusDescriptor),
});
