/**
 * Protobuf descriptors of authentication.k8s.io/v1 SelfSubjectReview (what `kubectl auth whoami` sends) and
 * TokenRequest (what `kubectl create token` sends).
 * Field numbers from k8s.io/api/authentication/v1/generated.proto.
 */
import { objectMetaDescriptor, type ProtobufMessageDescriptor } from '@kapi/apimachinery';
import { extraValueDescriptor } from './authorization-descriptors.js';
import { field, keep, mapField, message, repeatedField } from './descriptor-helpers.js';

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

/** authentication/v1 TokenRequest (the body of `serviceaccounts/<name>/token`). */
export const tokenRequestDescriptor: ProtobufMessageDescriptor = message('TokenRequest', {
  1: field('metadata', objectMetaDescriptor),
  2: field(
    'spec',
    message('TokenRequestSpec', {
      1: repeatedField('audiences', 'string'),
      3: field(
        'boundObjectRef',
        message('BoundObjectReference', {
          1: field('kind', 'string'),
          2: field('apiVersion', 'string'),
          3: field('name', 'string'),
          4: field('uid', 'string'),
        }),
      ),
      4: field('expirationSeconds', 'int64', keep),
    }),
  ),
  3: field('status', message('TokenRequestStatus', { 1: field('token', 'string'), 2: field('expirationTimestamp', 'time') })),
});
