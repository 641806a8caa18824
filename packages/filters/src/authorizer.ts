import { StatusError } from '@kapi/apimachinery';
import type { RequestInfo, UserInfo } from './handler.js';

/** What is being asked (k8s.io/apiserver authorizer.Attributes). */
export interface AuthorizationAttributes {
  /** The user; undefined for an unauthenticated request. */
  user: UserInfo | undefined;
  verb: string;
  isResourceRequest: boolean;
  /** URL path (used for non-resource requests). */
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
}

/** An authorizer's answer. `noOpinion` lets the next authorizer decide; at the end it means denied. */
export interface AuthorizationDecision {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason?: string;
}

/**
 * Decides requests (`--authorization-mode` entries). An authorizer that can answer at once may return
 * the decision itself (no promise, no extra tick on the request path).
 */
export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): AuthorizationDecision | Promise<AuthorizationDecision>;
}

const allowed: AuthorizationDecision = Object.freeze({ decision: 'allow' });
const noOpinion: AuthorizationDecision = Object.freeze({ decision: 'noOpinion' });

/** Builds authorization attributes from a parsed request and its user. */
export function attributesFromRequest(
  info: RequestInfo,
  user: UserInfo | undefined,
): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

/** `--authorization-mode=AlwaysAllow`. */
export const alwaysAllowAuthorizer: Authorizer = {
  authorize: () => allowed,
};

/** `--authorization-mode=AlwaysDeny`. */
export const alwaysDenyAuthorizer: Authorizer = {
  authorize: () => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }),
};

/** Allows every member of the given groups (kube-apiserver puts `system:masters` first). */
export function privilegedGroupsAuthorizer(groups: readonly string[]): Authorizer {
  const privileged = new Set(groups);
  return {
    authorize: (attributes) =>
      attributes.user?.groups.some((group) => privileged.has(group)) ? allowed : noOpinion,
  };
}

/**
 * Asks each authorizer in turn; the first `allow` or `deny` wins. With no decision the result is
 * `noOpinion` with the reasons joined by newlines. A throwing authorizer counts as no opinion
 * unless none decides, in which case the error is rethrown.
 */
export function unionAuthorizer(...authorizers: readonly Authorizer[]): Authorizer {
  return { authorize: (attributes) => decideFrom(authorizers, attributes, 0, undefined, undefined) };
}

/**
 * Asks `authorizers` from `index` on, collecting reasons and errors (made only when there are some);
 * waits only for an authorizer that answers with a promise.
 */
function decideFrom(
  authorizers: readonly Authorizer[],
  attributes: AuthorizationAttributes,
  index: number,
  reasons: string[] | undefined,
  errors: unknown[] | undefined,
): AuthorizationDecision | Promise<AuthorizationDecision> {
  for (let at = index; at < authorizers.length; at++) {
    let result: AuthorizationDecision | Promise<AuthorizationDecision>;
    try {
      result = (authorizers[at] as Authorizer).authorize(attributes);
    } catch (error) {
      (errors ??= []).push(error);
      continue;
    }
    if (result instanceof Promise) {
      const reasonsSoFar = reasons ?? [];
      const errorsSoFar = errors ?? [];
      return result.then(
        (decision) => {
          if (decision.reason) reasonsSoFar.push(decision.reason);
          if (decision.decision !== 'noOpinion') return decision;
          return decideFrom(authorizers, attributes, at + 1, reasonsSoFar, errorsSoFar);
        },
        (error: unknown) => {
          errorsSoFar.push(error);
          return decideFrom(authorizers, attributes, at + 1, reasonsSoFar, errorsSoFar);
        },
      );
    }
    if (result.reason) (reasons ??= []).push(result.reason);
    if (result.decision !== 'noOpinion') return result;
  }
  if (errors && errors.length > 0) {
    throw new AggregateError(
      errors,
      errors.map((error) => (error instanceof Error ? error.message : String(error))).join(', '),
    );
  }
  return reasons && reasons.length > 0 ? { decision: 'noOpinion', reason: reasons.join('\n') } : noOpinion;
}

/** The status of a SubjectAccessReview (`allowed`, `denied`, `reason`, `evaluationError`). */
export interface SubjectAccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/**
 * Evaluates attributes the way the SubjectAccessReview endpoints do (for SelfSubjectAccessReview /
 * `kubectl auth can-i`): an authorizer error becomes `evaluationError`, not a failure.
 */
export async function authorizeAttributes(
  authorizer: Authorizer,
  attributes: AuthorizationAttributes,
): Promise<SubjectAccessReviewStatus> {
  try {
    const result = await authorizer.authorize(attributes);
    const status: SubjectAccessReviewStatus = { allowed: result.decision === 'allow' };
    if (result.decision === 'deny') status.denied = true;
    if (result.reason) status.reason = result.reason;
    return status;
  } catch (error) {
    return { allowed: false, evaluationError: error instanceof Error ? error.message : String(error) };
  }
}

/** Kubernetes' denial text (responsewriters forbiddenMessage). */
export function forbiddenMessage(attributes: AuthorizationAttributes): string {
  const userName = attributes.user?.name ?? '';
  if (!attributes.isResourceRequest) {
    return `User ${quote(userName)} cannot ${attributes.verb} path ${quote(attributes.path)}`;
  }
  const resource = attributes.subresource
    ? `${attributes.resource}/${attributes.subresource}`
    : attributes.resource;
  const prefix = `User ${quote(userName)} cannot ${attributes.verb} resource ${quote(resource)} in API group ${quote(attributes.apiGroup)}`;
  return attributes.namespace
    ? `${prefix} in the namespace ${quote(attributes.namespace)}`
    : `${prefix} at the cluster scope`;
}

/**
 * The 403 for a denied request: `configmaps "x" is forbidden: User "bob" cannot get resource ...`,
 * `forbidden: User "bob" cannot get path "/foo"` for non-resource requests; the authorizer's reason,
 * if any, follows after `: `.
 */
export function forbiddenError(attributes: AuthorizationAttributes, reason = ''): StatusError {
  const text = sanitize(reason ? `${forbiddenMessage(attributes)}: ${reason}` : forbiddenMessage(attributes));
  if (!attributes.resource && !attributes.apiGroup) {
    return StatusError.of(403, 'Forbidden', `forbidden: ${text}`, {});
  }
  return StatusError.forbidden(
    { group: attributes.apiGroup, resource: attributes.resource },
    attributes.name,
    text,
  );
}

/** Go's %q for the plain strings used here. */
function quote(value: string): string {
  return JSON.stringify(value);
}

/** Avoid emitting text that looks like HTML (upstream's sanitizer). */
function sanitize(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
