import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { StatusError, Type, kindSchema, type KindDefinition, type KubeObject, withFieldDescriptions } from '@kapi/apimachinery';
import { allAuthenticatedGroup, type Authenticator, type UserInfo } from '@kapi/filters';
import type { ResourceDefinition } from '@kapi/server';
import { setRequestedAudiences } from '../service-accounts/service-account-authenticator.js';
import { tokenReviewDescription, tokenReviewDescriptions } from './authentication-descriptions.js';

const authentication = 'authentication.k8s.io';
const version = 'v1';
const strings = () => Type.Optional(Type.Array(Type.String()));
const extra = () => Type.Optional(Type.Record(Type.String(), Type.Array(Type.String())));

/**
 * The kind of the review aggregated servers delegate authentication to: TokenReview (v1). SubjectAccessReview,
 * for delegated authorization, is served with the other access reviews (`subject-access-reviews.ts`).
 */
export const delegationReviewKinds: KindDefinition[] = [
  {
    group: authentication,
    version,
    kind: 'TokenReview',
    schema: withFieldDescriptions(
      kindSchema({
        group: authentication,
        version,
        kind: 'TokenReview',
        description: tokenReviewDescription,
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
      tokenReviewDescriptions,
    ),
  },
];

interface TokenReviewSpec {
  token?: string;
  audiences?: string[];
}

/**
 * Runs the token authenticators on a request that carries only `Authorization: Bearer <token>`, like
 * upstream's union authenticator: the first user wins, else the errors of those that failed.
 */
async function authenticateToken(
  authenticators: Authenticator[],
  token: string,
  audiences: string[] = [],
): Promise<{ user?: UserInfo; errors: string[] }> {
  const request = new IncomingMessage(new Socket());
  request.headers = { authorization: `Bearer ${token}` };
  // Audience-aware authenticators (service account tokens) check the review's audiences instead of the API's.
  setRequestedAudiences(request, audiences);
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

/**
 * `authentication.k8s.io/v1` TokenReview (virtual: answered, not stored), which aggregated servers call for
 * delegated authentication. `authenticators` are the server's token authenticators.
 */
export function delegationReviewResources(options: {
  authenticators: Authenticator[];
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
          // A null list is an absent one (Go decodes it to a nil slice).
          const audiences = spec.audiences ?? undefined;
          const found = await authenticateToken(options.authenticators, spec.token, audiences);
          return { ...object, status: tokenReviewStatus(found, audiences) };
        },
      },
    },
  ];
}
