import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import {
  StatusError,
  Type,
  kindSchema,
  type FieldError,
  type KindDefinition,
  type KubeObject,
} from '@kapi/apimachinery';
import {
  allAuthenticatedGroup,
  authorizeAttributes,
  type Authenticator,
  type Authorizer,
  type UserInfo,
} from '@kapi/filters';
import type { ResourceDefinition } from '@kapi/server';

const authentication = 'authentication.k8s.io';
const authorization = 'authorization.k8s.io';
const version = 'v1';
const strings = () => Type.Optional(Type.Array(Type.String()));
const extra = () => Type.Optional(Type.Record(Type.String(), Type.Array(Type.String())));
const preserved = () => Type.Optional(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true }));

/** The kinds of the reviews aggregated servers delegate to: TokenReview and SubjectAccessReview (v1). */
export const delegationReviewKinds: KindDefinition[] = [
  {
    group: authentication,
    version,
    kind: 'TokenReview',
    schema: kindSchema({
      group: authentication,
      version,
      kind: 'TokenReview',
      spec: Type.Object({ token: Type.Optional(Type.String()), audiences: strings() }),
      status: Type.Object({
        authenticated: Type.Optional(Type.Boolean()),
        user: Type.Optional(
          Type.Object({
            username: Type.Optional(Type.String()),
            uid: Type.Optional(Type.String()),
            groups: strings(),
            extra: extra(),
          }),
        ),
        audiences: strings(),
        error: Type.Optional(Type.String()),
      }),
    }),
  },
  {
    group: authorization,
    version,
    kind: 'SubjectAccessReview',
    schema: kindSchema({
      group: authorization,
      version,
      kind: 'SubjectAccessReview',
      spec: Type.Object({
        resourceAttributes: preserved(),
        nonResourceAttributes: preserved(),
        user: Type.Optional(Type.String()),
        groups: strings(),
        extra: extra(),
        uid: Type.Optional(Type.String()),
      }),
      status: Type.Object({
        allowed: Type.Boolean(),
        denied: Type.Optional(Type.Boolean()),
        reason: Type.Optional(Type.String()),
        evaluationError: Type.Optional(Type.String()),
      }),
    }),
  },
];

interface TokenReviewSpec {
  token?: string;
  audiences?: string[];
}

interface SubjectAccessReviewSpec {
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
  user?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
  uid?: string;
}

/**
 * Runs the token authenticators on a request that carries only `Authorization: Bearer <token>`, like
 * upstream's union authenticator: the first user wins, else the errors of those that failed.
 */
async function authenticateToken(
  authenticators: Authenticator[],
  token: string,
): Promise<{ user?: UserInfo; errors: string[] }> {
  const request = new IncomingMessage(new Socket());
  request.headers = { authorization: `Bearer ${token}` };
  const errors: string[] = [];
  for (const authenticate of authenticators) {
    try {
      const user = await authenticate(request);
      if (user) {
        const groups = user.groups.includes(allAuthenticatedGroup)
          ? user.groups
          : [...user.groups, allAuthenticatedGroup];
        return { user: { ...user, groups }, errors };
      }
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { errors };
}

function tokenReviewStatus(
  found: { user?: UserInfo; errors: string[] },
  audiences: string[] | undefined,
): Record<string, unknown> {
  const user = found.user;
  if (!user) {
    // authenticated: false is omitted (omitempty); the errors are aggregated as upstream's utilerrors.
    const error =
      found.errors.length === 1
        ? found.errors[0]
        : found.errors.length
          ? `[${found.errors.join(', ')}]`
          : undefined;
    return { user: {}, ...(error ? { error } : {}) };
  }
  return {
    authenticated: true,
    user: {
      username: user.name,
      ...(user.uid ? { uid: user.uid } : {}),
      groups: user.groups,
      ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
    },
    ...(audiences?.length ? { audiences } : {}),
  };
}

/** Upstream's ValidateSubjectAccessReviewSpec. */
function validateSubjectAccessReview(spec: SubjectAccessReviewSpec): FieldError[] {
  const errors: FieldError[] = [];
  const union = 'exactly one of nonResourceAttributes or resourceAttributes must be specified';
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errors.push({
      field: 'spec',
      type: 'FieldValueInvalid',
      value: spec.nonResourceAttributes,
      detail: union,
    });
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errors.push({ field: 'spec', type: 'FieldValueInvalid', value: null, detail: union });
  }
  if (!spec.user && !spec.groups?.length) {
    errors.push({
      field: 'spec.user',
      type: 'FieldValueInvalid',
      value: spec.user ?? '',
      detail: 'at least one of user or group must be specified',
    });
  }
  return errors;
}

/**
 * `authentication.k8s.io/v1` TokenReview and `authorization.k8s.io/v1` SubjectAccessReview (virtual:
 * answered, not stored), which aggregated servers call for delegated authentication and authorization.
 * `authenticators` are the server's token authenticators; `authorizer` is the server's authorizer.
 */
export function delegationReviewResources(options: {
  authenticators: Authenticator[];
  authorizer: () => Authorizer;
}): ResourceDefinition[] {
  return [
    {
      group: authentication,
      resource: 'tokenreviews',
      kind: 'TokenReview',
      namespaced: false,
      versions: [version],
      virtual: {
        async create(object: KubeObject, scope) {
          if (scope.namespace) throw StatusError.badRequest('namespace is not allowed on this type');
          const spec = (object.spec ?? {}) as TokenReviewSpec;
          if (!spec.token)
            throw StatusError.badRequest('token is required for TokenReview in authentication');
          const found = await authenticateToken(options.authenticators, spec.token);
          return { ...object, status: tokenReviewStatus(found, spec.audiences) };
        },
      },
    },
    {
      group: authorization,
      resource: 'subjectaccessreviews',
      kind: 'SubjectAccessReview',
      namespaced: false,
      versions: [version],
      virtual: {
        async create(object: KubeObject) {
          const spec = (object.spec ?? {}) as SubjectAccessReviewSpec;
          const errors = validateSubjectAccessReview(spec);
          if (errors.length)
            throw StatusError.invalid(
              { group: authorization, kind: 'SubjectAccessReview' },
              object.metadata?.name ?? '',
              errors,
            );
          const resource = spec.resourceAttributes;
          const nonResource = spec.nonResourceAttributes;
          const user: UserInfo = {
            name: spec.user ?? '',
            groups: spec.groups ?? [],
            ...(spec.uid ? { uid: spec.uid } : {}),
            ...(spec.extra ? { extra: spec.extra } : {}),
          };
          const status = await authorizeAttributes(options.authorizer(), {
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
          });
          return { ...object, status };
        },
      },
    },
  ];
}
