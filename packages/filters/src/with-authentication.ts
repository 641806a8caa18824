import type { IncomingMessage } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { requestContext, writeStatus, type Filter, type Handler, type UserInfo } from './handler.js';

/**
 * Authenticates a request: a user, `undefined` when the request carries no credentials this
 * authenticator understands, or a thrown error when it carries credentials that are bad (which
 * rules out anonymous access, as upstream's union authenticator does).
 */
export type Authenticator = (
  request: IncomingMessage,
) => UserInfo | undefined | Promise<UserInfo | undefined>;

/** Group of every authenticated user. */
export const allAuthenticatedGroup = 'system:authenticated';
/** Group of the anonymous user. */
export const allUnauthenticatedGroup = 'system:unauthenticated';
/** Name of the anonymous user. */
export const anonymousUser = 'system:anonymous';
/** The privileged group (always authorized). */
export const systemPrivilegedGroup = 'system:masters';

/** Options of {@link withAuthentication}. */
export interface AuthenticationOptions {
  /** Tried in order; the first user wins. */
  authenticators: readonly Authenticator[];
  /** Let requests without credentials in as `system:anonymous` (`--anonymous-auth`); default false. */
  anonymous?: boolean;
  /** Answers a request that failed authentication (upstream's `failedHandler`); default {@link unauthorized}. */
  failed?: Handler;
}

/** Answers 401 `Unauthorized` (upstream's `Unauthorized` failed handler). */
export const unauthorized: Handler = (_request, response) => {
  writeStatus(response, StatusError.unauthorized('Unauthorized'));
};

/**
 * Authenticates each request (WithAuthentication). On success the user (plus group
 * `system:authenticated`) is put in the context and the `Authorization` header is removed; on
 * failure `failed` answers (401 `Unauthorized` by default). With `anonymous`, a request with no credentials at all
 * becomes `system:anonymous` in `system:unauthenticated`; bad credentials still get 401.
 */
export function withAuthentication(options: AuthenticationOptions): Filter {
  const authenticators = options.authenticators;
  const failed = options.failed ?? unauthorized;
  return (next) => (request, response) => {
    const errors: unknown[] = [];
    const admit = (found: UserInfo | undefined) => {
      let user = found;
      if (user) {
        if (!user.groups.includes(allAuthenticatedGroup) && !user.groups.includes(allUnauthenticatedGroup)) {
          user = { ...user, groups: [...user.groups, allAuthenticatedGroup] };
        }
        delete request.headers.authorization;
      } else if (options.anonymous && errors.length === 0 && request.headers.authorization === undefined) {
        user = { name: anonymousUser, groups: [allUnauthenticatedGroup] };
      } else {
        return failed(request, response);
      }
      requestContext(request).user = user;
      return next(request, response);
    };
    /** Tries authenticators from `index` on; waits only for one that answers with a promise. */
    const from = (index: number): void | Promise<void> => {
      for (let at = index; at < authenticators.length; at++) {
        let result: UserInfo | undefined | Promise<UserInfo | undefined>;
        try {
          result = (authenticators[at] as Authenticator)(request);
        } catch (error) {
          errors.push(error);
          continue;
        }
        if (result instanceof Promise) {
          return result.then(
            (user) => (user ? admit(user) : from(at + 1)),
            (error: unknown) => {
              errors.push(error);
              return from(at + 1);
            },
          );
        }
        if (result) return admit(result);
      }
      return admit(undefined);
    };
    return from(0);
  };
}

/** The bearer token of a request (`Authorization: Bearer <token>`), or undefined. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization?.trim();
  if (!header) return undefined;
  const parts = header.split(' ');
  if (parts.length < 2 || parts[0]?.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1];
  return token ? token : undefined;
}
