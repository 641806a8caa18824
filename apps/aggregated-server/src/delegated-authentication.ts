import { createHash } from 'node:crypto';
import type { RestClient } from '@kapi/client';
import { bearerToken, type Authenticator, type UserInfo } from '@kapi/filters';
import { TtlCache } from './ttl-cache.js';

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

/** Options of {@link tokenReviewAuthenticator}. */
export interface TokenReviewAuthenticatorOptions {
  /** How long an answer (authenticated or not) is reused; upstream's default 10 s. */
  cacheTtlMs?: number;
}

/**
 * Bearer tokens checked by the main server (upstream's delegating webhook token authenticator): a
 * `TokenReview` per token, answers cached briefly by the token's hash. A token the main server does not
 * accept is an error (so the request gets 401, not anonymous).
 */
export function tokenReviewAuthenticator(client: RestClient, options: TokenReviewAuthenticatorOptions = {}): Authenticator {
  const cache = new TtlCache<UserInfo | string>(options.cacheTtlMs ?? 10_000);
  return async (request) => {
    const token = bearerToken(request);
    if (token === undefined) return undefined;
    const key = createHash('sha256').update(token).digest('hex');
    let answer = cache.get(key);
    if (answer === undefined) {
      const review = await client.request<{ status?: TokenReviewStatus }>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/tokenreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
      });
      const status = review.status ?? {};
      answer =
        status.authenticated && status.user?.username
          ? {
              name: status.user.username,
              groups: status.user.groups ?? [],
              ...(status.user.uid ? { uid: status.user.uid } : {}),
              ...(status.user.extra ? { extra: status.user.extra } : {}),
            }
          : (status.error ?? 'token not authenticated');
      cache.set(key, answer);
    }
    if (typeof answer === 'string') throw new Error(answer);
    return answer;
  };
}
