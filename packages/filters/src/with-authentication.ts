import type { IncomingMessage, ServerResponse } from 'node:http';
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
/** The user of an anonymous request (shared, frozen). */
const anonymousUserInfo: UserInfo = Object.freeze({ name: anonymousUser, groups: Object.freeze([allUnauthenticatedGroup]) as string[] });
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
  const anonymous = options.anonymous === true;
  /** Each user an authenticator answered with, with `system:authenticated` added (made once per user object). */
  const withAuthenticatedGroup = new WeakMap<UserInfo, UserInfo>();
  const admit = (
    request: IncomingMessage,
    response: ServerResponse,
    next: Handler,
    found: UserInfo | undefined,
    failures: number,
  ): void | Promise<void> => {
    let user = found;
    if (user) {
      if (!user.groups.includes(allAuthenticatedGroup) && !user.groups.includes(allUnauthenticatedGroup)) {
        const answered = user;
        user = withAuthenticatedGroup.get(answered);
        if (!user) {
          // Shared by every request of that user object: frozen, as the token file's users are.
          user = Object.freeze({ ...answered, groups: Object.freeze([...answered.groups, allAuthenticatedGroup]) as string[] });
          withAuthenticatedGroup.set(answered, user);
        }
      }
      // Cleared, not deleted: deleting a property turns the headers object into a slow dictionary.
      request.headers.authorization = undefined;
    } else if (anonymous && failures === 0 && request.headers.authorization === undefined) {
      user = anonymousUserInfo;
    } else {
      return failed(request, response);
    }
    requestContext(request).user = user;
    return next(request, response);
  };
  /** Tries authenticators from `index` on; waits only for one that answers with a promise. */
  const from = (
    request: IncomingMessage,
    response: ServerResponse,
    next: Handler,
    index: number,
    failures: number,
  ): void | Promise<void> => {
    for (let at = index; at < authenticators.length; at++) {
      let result: UserInfo | undefined | Promise<UserInfo | undefined>;
      try {
        result = (authenticators[at] as Authenticator)(request);
      } catch {
        failures++;
        continue;
      }
      if (result instanceof Promise) {
        const failuresSoFar = failures;
        return result.then(
          (user) =>
            user
              ? admit(request, response, next, user, failuresSoFar)
              : from(request, response, next, at + 1, failuresSoFar),
          () => from(request, response, next, at + 1, failuresSoFar + 1),
        );
      }
      if (result) return admit(request, response, next, result, failures);
    }
    return admit(request, response, next, undefined, failures);
  };
  // No closure is made per request: the common case (a synchronous authenticator) allocates nothing here.
  return (next) => (request, response) => from(request, response, next, 0, 0);
}

/** The bearer token of a request (`Authorization: Bearer <token>`, the scheme in any case), or undefined. */
export function bearerToken(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization?.trim();
  if (!header) return undefined;
  // As upstream: the text up to the first space is the scheme, the token runs to the next space.
  const space = header.indexOf(' ');
  if (space !== 6 || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  const end = header.indexOf(' ', 7);
  const token = end < 0 ? header.slice(7) : header.slice(7, end);
  return token ? token : undefined;
}
