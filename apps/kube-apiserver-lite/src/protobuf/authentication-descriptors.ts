/**
 * Protobuf descriptor of authentication.k8s.io/v1 SelfSubjectReview (what `kubectl auth whoami` sends).
 * Field numbers from k8s.io/api/authentication/v1/generated.proto.
 */
import { objectMetaDescriptor, type ProtobufMessageDescriptor } from '@kapi/apimachinery';
import { extraValueDescriptor } from './authorization-descriptors.js';
import { field, mapField, message, repeatedField } from './descriptor-helpers.js';

const userInfo = message('UserInfo', {
  1: field('username', 'string'),
  2: field('uid', 'string'),
  3: repeatedField('groups', 'string'),
  4: mapField('extra', extraValueDescriptor),
});

/** authentication/v1 SelfSubjectReview. */
export const selfSubjectReviewDescriptor: ProtobufMessageDescriptor = message('SelfSubjectReview', {
  1: field('metadata', objectMetaDescriptor),
  2: field('status', message('SelfSubjectReviewStatus', { 1: field('userInfo', userInfo) })),
});
