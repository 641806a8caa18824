import { StatusError, Type, kindSchema, type KindDefinition, type KubeObject, withFieldDescriptions } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import {
  selfSubjectReviewDescription,
  selfSubjectReviewDescriptions,
} from './authentication-descriptions.js';

const group = 'authentication.k8s.io';
const version = 'v1';

/** authentication.k8s.io/v1 SelfSubjectReview: who the server takes the caller for (`kubectl auth whoami`). */
export const selfSubjectReviewKind: KindDefinition = {
  group,
  version,
  kind: 'SelfSubjectReview',
  schema: withFieldDescriptions(
    kindSchema({
      group,
      version,
      kind: 'SelfSubjectReview',
      description: selfSubjectReviewDescription,
      status: Type.Object({
        userInfo: Type.Optional(
          Type.Object({
            username: Type.Optional(Type.String()),
            uid: Type.Optional(Type.String()),
            groups: Type.Optional(Type.Array(Type.String())),
            extra: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
          }),
        ),
      }),
    }),
    selfSubjectReviewDescriptions,
  ),
};

/**
 * `selfsubjectreviews` (virtual: answered, not stored): the request's body is ignored but for its kind,
 * and the answer's `status.userInfo` is the authenticated user, as upstream's registry fills it.
 */
export const selfSubjectReviewResource: ResourceDefinition = {
  group,
  resource: 'selfsubjectreviews',
  kind: 'SelfSubjectReview',
  namespaced: false,
  versions: [version],
  virtual: {
    create(object: KubeObject, scope) {
      if (scope.namespace) throw StatusError.badRequest('namespace is not allowed on this type');
      const user = scope.user;
      if (!user) throw StatusError.badRequest('no user present on request');
      return {
        apiVersion: object.apiVersion,
        kind: object.kind,
        metadata: { ...object.metadata, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
        status: {
          userInfo: {
            username: user.name,
            ...(user.uid ? { uid: user.uid } : {}),
            ...(user.groups.length ? { groups: user.groups } : {}),
            ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
          },
        },
      } as KubeObject;
    },
  },
};
