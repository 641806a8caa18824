import type { RestClient } from '@kapi/client';
import {
  systemPrivilegedGroup,
  type AuthorizationAttributes,
  type AuthorizationDecision,
  type Authorizer,
} from '@kapi/filters';
import { TtlCache } from './ttl-cache.js';

/** Options of {@link subjectAccessReviewAuthorizer}. */
export interface DelegatedAuthorizerOptions {
  /** How long allow and deny answers are reused; upstream's default 10 s each. */
  cacheTtlMs?: number;
  /**
   * Non-resource paths allowed without asking (a trailing `*` matches a prefix); default the health
   * endpoints, OpenAPI and discovery.
   */
  alwaysAllowPaths?: string[];
}

/** Health, OpenAPI and discovery: what any client may read without the main server being asked. */
export const defaultAlwaysAllowPaths = ['/healthz', '/healthz/*', '/readyz', '/readyz/*', '/livez', '/livez/*', '/openapi/*', '/version', '/api', '/apis', '/apis/*'];

function pathAllowed(patterns: string[], path: string): boolean {
  return patterns.some((pattern) => (pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern));
}

interface SubjectAccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
}

/** The SubjectAccessReview spec for a request's attributes. */
function reviewSpec(attributes: AuthorizationAttributes): Record<string, unknown> {
  const user = attributes.user;
  const spec: Record<string, unknown> = { user: user?.name ?? '', groups: user?.groups ?? [] };
  if (user?.uid) spec['uid'] = user.uid;
  if (user?.extra) spec['extra'] = user.extra;
  if (attributes.isResourceRequest) {
    spec['resourceAttributes'] = {
      namespace: attributes.namespace,
      verb: attributes.verb,
      group: attributes.apiGroup,
      version: attributes.apiVersion,
      resource: attributes.resource,
      subresource: attributes.subresource,
      name: attributes.name,
    };
  } else {
    spec['nonResourceAttributes'] = { path: attributes.path, verb: attributes.verb };
  }
  return spec;
}

/**
 * Authorization by the main server (upstream's delegating authorizer): members of `system:masters` and
 * the always-allowed paths pass at once; everything else is a `SubjectAccessReview` the main server's
 * authorizer (RBAC) answers, cached briefly.
 */
export function subjectAccessReviewAuthorizer(client: RestClient, options: DelegatedAuthorizerOptions = {}): Authorizer {
  const cache = new TtlCache<AuthorizationDecision>(options.cacheTtlMs ?? 10_000);
  const paths = options.alwaysAllowPaths ?? defaultAlwaysAllowPaths;
  return {
    authorize(attributes) {
      if (attributes.user?.groups.includes(systemPrivilegedGroup)) return { decision: 'allow' };
      if (!attributes.isResourceRequest && pathAllowed(paths, attributes.path)) return { decision: 'allow' };
      const spec = reviewSpec(attributes);
      const key = JSON.stringify(spec);
      const cached = cache.get(key);
      if (cached) return cached;
      return client
        .request<{ status?: SubjectAccessReviewStatus }>({
          method: 'POST',
          path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
          body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec },
        })
        .then((review) => {
          const status = review.status ?? {};
          const decision: AuthorizationDecision = {
            decision: status.allowed ? 'allow' : status.denied ? 'deny' : 'noOpinion',
            ...(status.reason ? { reason: status.reason } : {}),
          };
          cache.set(key, decision);
          return decision;
        });
    },
  };
}
