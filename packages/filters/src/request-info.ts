import { StatusError, nameIsPathSegment, parseFieldSelector } from '@kapi/apimachinery';
import { splitRequestTarget, type RequestInfo, type RequestTarget } from './handler.js';

/** URL prefixes that carry API resources (`/api/v1/...`, `/apis/<group>/<version>/...`). */
const apiPrefixes = new Set(['api', 'apis']);
/** Prefixes without a group segment (the legacy core group). */
const grouplessApiPrefixes = new Set(['api']);
/** Path verbs that precede the resource path (`/api/v1/watch/pods`). */
const specialVerbs = new Set(['proxy', 'watch']);
/** Special verbs whose third part is not a subresource. */
const specialVerbsNoSubresources = new Set(['proxy']);
/** Subresources of a namespace, so `/namespaces/foo/status` is not read as resource `status` in `foo`. */
const namespaceSubresources = new Set(['status', 'finalize']);

const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export { pathSegments } from './handler.js';

/**
 * Parses a request the way k8s.io/apiserver's RequestInfoFactory does:
 * `/api/v1/namespaces/<ns>/<resource>/<name>/<subresource>`, `/apis/<group>/<version>/...`,
 * legacy `/watch/` paths, `?watch=` on collections; anything else is a non-resource request whose
 * verb is the lower-case HTTP method.
 *
 * Throws a 500 StatusError for a special-verb path with nothing after the verb (`/api/v1/watch`).
 */
export function parseRequestInfo(method: string, url: string | RequestTarget): RequestInfo {
  const target = typeof url === 'string' ? splitRequestTarget(url) : url;
  const path = target.path;
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };

  // One array of segments, read from `at` on (no copy per consumed segment).
  const segments = target.segments;
  if (segments.length < 3) return info;
  const prefix = segments[0] ?? '';
  if (!apiPrefixes.has(prefix)) return info;
  let at = 1;

  let group = '';
  if (!grouplessApiPrefixes.has(prefix)) {
    // The prefix is consumed already, so this asks "were there four parts?".
    if (segments.length - at < 3) return info;
    group = segments[at] ?? '';
    at++;
  }

  info.apiPrefix = prefix;
  info.apiGroup = group;
  info.isResourceRequest = true;
  info.apiVersion = segments[at] ?? '';
  at++;

  const first = segments[at] ?? '';
  if (specialVerbs.has(first)) {
    if (segments.length - at < 2) {
      // Upstream's text; upstream answers 500, but the URL names nothing to serve: 404.
      throw StatusError.of(
        404,
        'NotFound',
        `failed to create RequestInfo: unable to determine kind and namespace from url, ${typeof url === 'string' ? url : `${path}${target.query.size > 0 ? `?${target.query.toString()}` : ''}`}`,
      );
    }
    info.verb = first;
    at++;
  } else {
    info.verb = methodVerbs[method.toUpperCase()] ?? '';
  }

  if (segments[at] === 'namespaces') {
    if (segments.length - at > 1) {
      info.namespace = segments[at + 1] ?? '';
      // `/namespaces/<ns>/<resource>...`: the rest is a namespaced resource path, unless the part
      // after the namespace name is a namespace subresource.
      if (segments.length - at > 2 && !namespaceSubresources.has(segments[at + 2] ?? '')) at += 2;
    }
  }
  const parts = segments.slice(at);
  info.parts = parts;

  if (parts.length >= 3 && !specialVerbsNoSubresources.has(info.verb)) info.subresource = parts[2] ?? '';
  if (parts.length >= 2) info.name = parts[1] ?? '';
  if (parts.length >= 1) info.resource = parts[0] ?? '';

  if (info.name === '' && info.verb === 'get') {
    // A watch value strconv.ParseBool reads as true (or a bare `?watch`); anything else stays a list, whose
    // handler rejects what does not parse with a 400.
    const value = target.query.get('watch');
    info.verb = value !== null && ['', '1', 't', 'T', 'TRUE', 'true', 'True'].includes(value) ? 'watch' : 'list';
    info.name = nameFromFieldSelector(target.query.get('fieldSelector'));
  }
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';
  return info;
}

/**
 * The name a list or watch is limited to by `fieldSelector=metadata.name=<name>` (upstream since 1.11),
 * so a user allowed only on `resourceNames: [<name>]` may list and watch it; "" when there is none,
 * the selector does not parse, or the name is not a valid path segment.
 */
function nameFromFieldSelector(text: string | null): string {
  if (!text) return '';
  try {
    const name = parseFieldSelector(text).requiresExactMatch('metadata.name');
    return name !== undefined && nameIsPathSegment(name, false).length === 0 ? name : '';
  } catch {
    return '';
  }
}

/** Verbs that are long-running (exempt from max-in-flight and the request timeout). */
const longRunningVerbs = new Set(['watch', 'proxy']);
/** Subresources that are long-running. */
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/**
 * kube-apiserver's long-running check (BasicLongRunningRequestCheck with verbs watch/proxy and
 * subresources attach/exec/proxy/log/portforward).
 */
export function isLongRunningRequest(info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  return longRunningVerbs.has(info.verb) || longRunningSubresources.has(info.subresource);
}
