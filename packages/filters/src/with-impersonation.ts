import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { requestContext, writeStatus, type Filter, type Handler, type UserInfo } from './handler.js';
import { forbiddenError, type AuthorizationAttributes, type Authorizer } from './authorizer.js';
import { allAuthenticatedGroup, allUnauthenticatedGroup, anonymousUser } from './with-authentication.js';

const userHeader = 'impersonate-user';
const groupHeader = 'impersonate-group';
const uidHeader = 'impersonate-uid';
const extraHeaderPrefix = 'impersonate-extra-';
const serviceAccountPrefix = 'system:serviceaccount:';

/** One thing the requester asks to act as, with the resource it is authorized on. */
interface ImpersonationRequest {
  resource: 'users' | 'groups' | 'serviceaccounts' | 'uids' | 'userextras';
  apiGroup: '' | 'authentication.k8s.io';
  apiVersion: 'v1';
  namespace: string;
  name: string;
  /** The extra key (the subresource of `userextras`). */
  extraKey: string;
}

/** Options of {@link withImpersonation}. */
export interface ImpersonationOptions {
  /** The server's authorizer (the same one its authorization filter asks). */
  authorizer: Authorizer;
}

/** `ns`, `name` of `system:serviceaccount:<ns>:<name>`, or undefined (serviceaccount.SplitUsername). */
function splitServiceAccount(userName: string): { namespace: string; name: string } | undefined {
  if (!userName.startsWith(serviceAccountPrefix)) return undefined;
  const parts = userName.slice(serviceAccountPrefix.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/** Header values as a list (Node joins repeated headers it does not know with `, `; read the raw pairs instead). */
function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] ?? '').toLowerCase() === name) values.push(rawHeaders[index + 1] ?? '');
  }
  return values;
}

function hasImpersonationHeader(headers: IncomingHttpHeaders): boolean {
  for (const name in headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

/** A percent-encoded extra key, decoded when it decodes (upstream's unescapeExtraKey). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** The impersonation the headers ask for, in upstream's order (buildImpersonationRequests). */
function impersonationRequests(headers: IncomingHttpHeaders, rawHeaders: readonly string[]): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const base = { apiVersion: 'v1', namespace: '', extraKey: '' } as const;
  const user = headerValues(rawHeaders, userHeader)[0] ?? '';
  if (user) {
    const account = splitServiceAccount(user);
    requests.push(
      account
        ? { ...base, resource: 'serviceaccounts', apiGroup: '', namespace: account.namespace, name: account.name }
        : { ...base, resource: 'users', apiGroup: '', name: user },
    );
  }
  const groups = headerValues(rawHeaders, groupHeader);
  for (const group of groups) requests.push({ ...base, resource: 'groups', apiGroup: '', name: group });
  const extraKeys = Object.keys(headers).filter((name) => name.startsWith(extraHeaderPrefix));
  for (const header of extraKeys) {
    const extraKey = unescapeExtraKey(header.slice(extraHeaderPrefix.length));
    for (const value of headerValues(rawHeaders, header)) {
      requests.push({ ...base, resource: 'userextras', apiGroup: 'authentication.k8s.io', name: value, extraKey });
    }
  }
  const uid = headerValues(rawHeaders, uidHeader)[0] ?? '';
  if (uid) requests.push({ ...base, resource: 'uids', apiGroup: 'authentication.k8s.io', name: uid });
  if (!user && (groups.length > 0 || extraKeys.length > 0 || uid)) {
    const asked = requests.map((request) => `${request.resource} ${JSON.stringify(request.name)}`).join(', ');
    throw StatusError.badRequest(`requested [${asked}] without impersonating a user`);
  }
  return requests;
}

/** The user the requests describe, with `system:authenticated` (or `system:unauthenticated`) as upstream adds it. */
function impersonatedUser(requests: readonly ImpersonationRequest[], groupsSpecified: boolean): UserInfo {
  let name = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const request of requests) {
    if (request.resource === 'users') name = request.name;
    else if (request.resource === 'serviceaccounts') {
      name = `${serviceAccountPrefix}${request.namespace}:${request.name}`;
      if (!groupsSpecified) groups.push('system:serviceaccounts', `system:serviceaccounts:${request.namespace}`);
    } else if (request.resource === 'groups') groups.push(request.name);
    else if (request.resource === 'uids') uid = request.name;
    else (extra[request.extraKey] ??= []).push(request.name);
  }
  if (name === anonymousUser) {
    if (!groups.includes(allUnauthenticatedGroup)) groups.push(allUnauthenticatedGroup);
  } else if (!groups.includes(allAuthenticatedGroup) && !groups.includes(allUnauthenticatedGroup)) {
    groups.push(allAuthenticatedGroup);
  }
  return { name, groups, ...(uid ? { uid } : {}), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}

/**
 * User impersonation (upstream WithImpersonation), after authentication and before authorization: the
 * `Impersonate-User` (a `system:serviceaccount:<ns>:<name>` name is a service account),
 * `Impersonate-Group` (repeatable), `Impersonate-Uid` and `Impersonate-Extra-<key>` headers each need
 * verb `impersonate` on `users`, `groups`, `serviceaccounts` (core group), `uids` or
 * `userextras/<key>` (authentication.k8s.io) for the authenticated user; the request then runs as the
 * impersonated user, and the headers are removed. A refusal is 403 with upstream's wording; groups,
 * extras or a uid without a user are 400.
 */
export function withImpersonation(options: ImpersonationOptions): Filter {
  const authorizer = options.authorizer;
  return (next) => (request, response) => {
    // Most requests carry no impersonation header: they go straight on (no parsing, no extra tick).
    if (!hasImpersonationHeader(request.headers)) return next(request, response);
    let requests: ImpersonationRequest[];
    try {
      requests = impersonationRequests(request.headers, request.rawHeaders);
    } catch (error) {
      writeStatus(response, error);
      return;
    }
    return requests.length === 0 ? next(request, response) : impersonate(authorizer, next, request, response, requests);
  };
}

/** Authorizes each impersonation request, then runs `next` as the impersonated user. */
async function impersonate(
  authorizer: Authorizer,
  next: Handler,
  request: IncomingMessage,
  response: ServerResponse,
  requests: readonly ImpersonationRequest[],
): Promise<void> {
  const context = requestContext(request);
  const requester = context.user;
  if (!requester) {
    writeStatus(response, StatusError.internal('no user found for request'));
    return;
  }
  for (const asked of requests) {
    const attributes: AuthorizationAttributes = {
      user: requester,
      verb: 'impersonate',
      isResourceRequest: true,
      path: '',
      namespace: asked.namespace,
      apiGroup: asked.apiGroup,
      apiVersion: asked.apiVersion,
      resource: asked.resource,
      subresource: asked.extraKey,
      name: asked.name,
    };
    let decision;
    try {
      decision = await authorizer.authorize(attributes);
    } catch {
      decision = { decision: 'noOpinion' as const };
    }
    if (decision.decision !== 'allow') {
      writeStatus(response, forbiddenError(attributes, decision.reason ?? ''));
      return;
    }
  }
  context.user = impersonatedUser(requests, headerValues(request.rawHeaders, groupHeader).length > 0);
  for (const header of Object.keys(request.headers)) {
    if (header === userHeader || header === groupHeader || header === uidHeader || header.startsWith(extraHeaderPrefix)) {
      delete request.headers[header];
    }
  }
  return next(request, response);
}
