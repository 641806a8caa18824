import { StatusError, Type, kindSchema, type FieldError, type KindDefinition, type KubeObject, type TSchema, withFieldDescriptions } from '@kapi/apimachinery';
import { accessReviewDescriptions, reviewKindDescription } from './authorization-descriptions.js';
import {
  alwaysAllowAuthorizer,
  authorizeAttributes,
  type AuthorizationAttributes,
  type UserInfo,
} from '@kapi/filters';
import type { RequestScope, ResourceDefinition } from '@kapi/server';

const group = 'authorization.k8s.io';
const version = 'v1';

/** spec.resourceAttributes / spec.nonResourceAttributes of the access reviews. */
export interface AccessReviewSpec {
  resourceAttributes?: {
    namespace?: string;
    verb?: string;
    group?: string;
    version?: string;
    resource?: string;
    subresource?: string;
    name?: string;
  };
  nonResourceAttributes?: { path?: string; verb?: string };
}

interface SubjectAccessReviewSpec extends AccessReviewSpec {
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** The authorization question an access review's spec asks about `user`. */
export function reviewAttributes(
  spec: AccessReviewSpec,
  user: UserInfo | undefined,
): AuthorizationAttributes {
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  return {
    user,
    verb: resource?.verb ?? nonResource?.verb ?? '',
    isResourceRequest: resource !== undefined,
    path: nonResource?.path ?? '',
    namespace: resource?.namespace ?? '',
    apiGroup: resource?.group ?? '',
    apiVersion: resource?.version ?? '',
    resource: resource?.resource ?? '',
    subresource: resource?.subresource ?? '',
    name: resource?.name ?? '',
  };
}

/** Answers an access review with the server's one authorizer (none: authorization is off, all allowed). */
export async function answerReview(
  object: KubeObject,
  spec: AccessReviewSpec,
  user: UserInfo | undefined,
  scope: RequestScope,
): Promise<KubeObject> {
  const status = await authorizeAttributes(
    scope.authorizer ?? alwaysAllowAuthorizer,
    reviewAttributes(spec, user),
  );
  return { ...object, status };
}

/** The check every access review's spec gets (ValidateSelfSubjectAccessReviewSpec): one kind of attributes. */
export function validateReviewAttributes(spec: AccessReviewSpec): FieldError[] {
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    return [
      {
        field: 'spec.nonResourceAttributes',
        type: 'FieldValueInvalid',
        value: spec.nonResourceAttributes,
        detail: 'cannot be specified in combination with resourceAttributes',
      },
    ];
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    return [
      {
        field: 'spec.resourceAttributes',
        type: 'FieldValueInvalid',
        value: null,
        detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      },
    ];
  }
  return [];
}

/** ValidateSubjectAccessReviewSpec (plus the LocalSubjectAccessReview rules when `namespace` is given). */
function validate(spec: SubjectAccessReviewSpec, namespace?: string): FieldError[] {
  const errors = validateReviewAttributes(spec);
  if (!spec.user && !spec.groups?.length) {
    errors.push({
      field: 'spec.user',
      type: 'FieldValueInvalid',
      value: spec.user ?? '',
      detail: 'at least one of user or group must be specified',
    });
  }
  if (namespace !== undefined) {
    if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== namespace) {
      errors.push({
        field: 'spec.resourceAttributes.namespace',
        type: 'FieldValueInvalid',
        value: spec.resourceAttributes.namespace ?? '',
        detail: 'must match metadata.namespace',
      });
    }
    if (spec.nonResourceAttributes) {
      errors.push({
        field: 'spec.nonResourceAttributes',
        type: 'FieldValueInvalid',
        value: spec.nonResourceAttributes,
        detail: 'disallowed on this kind of request',
      });
    }
  }
  return errors;
}

function reviewedUser(spec: SubjectAccessReviewSpec): UserInfo {
  return {
    name: spec.user ?? '',
    groups: spec.groups ?? [],
    ...(spec.uid ? { uid: spec.uid } : {}),
    ...(spec.extra ? { extra: spec.extra } : {}),
  };
}

/** The kinds, given the shared attribute schemas of authorization.ts. */
export function subjectAccessReviewKinds(attributes: {
  resource: TSchema;
  nonResource: TSchema;
  status: TSchema;
}): KindDefinition[] {
  const spec = Type.Object({
    resourceAttributes: Type.Optional(attributes.resource),
    nonResourceAttributes: Type.Optional(attributes.nonResource),
    user: Type.Optional(Type.String()),
    groups: Type.Optional(Type.Array(Type.String())),
    uid: Type.Optional(Type.String()),
    extra: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  });
  return ['SubjectAccessReview', 'LocalSubjectAccessReview'].map((kind) => ({
    group,
    version,
    kind,
    schema: withFieldDescriptions(
      kindSchema({
        group,
        version,
        kind,
        description: reviewKindDescription(kind),
        spec,
        status: attributes.status,
      }),
      accessReviewDescriptions(kind),
    ),
  }));
}

/**
 * authorization.k8s.io/v1 SubjectAccessReview (cluster-wide) and LocalSubjectAccessReview (in one
 * namespace): "may this user do that?", answered by the server's one authorizer for the user, groups, uid
 * and extra of the spec (nothing is added to them), never stored.
 */
export function subjectAccessReviewResources(): ResourceDefinition[] {
  return [
    {
      group,
      resource: 'subjectaccessreviews',
      kind: 'SubjectAccessReview',
      namespaced: false,
      versions: [version],
      virtual: {
        create(object: KubeObject, scope) {
          const spec = (object.spec ?? {}) as SubjectAccessReviewSpec;
          const errors = validate(spec);
          if (errors.length > 0)
            throw StatusError.invalid({ group, kind: 'SubjectAccessReview' }, '', errors);
          return answerReview(object, spec, reviewedUser(spec), scope);
        },
      },
    },
    {
      group,
      resource: 'localsubjectaccessreviews',
      kind: 'LocalSubjectAccessReview',
      namespaced: true,
      versions: [version],
      virtual: {
        create(object: KubeObject, scope) {
          const objectNamespace = object.metadata.namespace || scope.namespace;
          if (objectNamespace !== scope.namespace) {
            throw StatusError.badRequest(
              `spec.resourceAttributes.namespace must match namespace: ${scope.namespace}`,
            );
          }
          const spec = (object.spec ?? {}) as SubjectAccessReviewSpec;
          const errors = validate(spec, scope.namespace);
          if (errors.length > 0)
            throw StatusError.invalid({ group, kind: 'LocalSubjectAccessReview' }, '', errors);
          return answerReview(
            { ...object, metadata: { ...object.metadata, namespace: scope.namespace } },
            spec,
            reviewedUser(spec),
            scope,
          );
        },
      },
    },
  ];
}
