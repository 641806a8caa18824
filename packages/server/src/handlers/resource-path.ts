import { pathSegments } from '@kapi/filters';

/** A parsed resource URL (k8s.io/apiserver RequestInfo, for the paths the REST handlers serve). */
export interface ResourcePath {
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** The legacy `/watch/` path form. */
  legacyWatch: boolean;
}

const namespaceSubresources = new Set(['status', 'finalize']);

/**
 * Parses an already decoded `/api/v1/...` or `/apis/<group>/<version>/...` path (see
 * {@link requestTarget}), with the optional `watch/` segment and `namespaces/<ns>/` scoping, splitting
 * it exactly as @kapi/filters' RequestInfo does (so authorization and routing see the same namespace
 * and name). Returns undefined for anything else. `segments`: the path's, when already split (a
 * request target's `segments`).
 */
export function parseResourcePath(path: string, segments: readonly string[] = pathSegments(path)): ResourcePath | undefined {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    version = segments[1] ?? '';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1] ?? '';
    version = segments[2] ?? '';
    rest = segments.slice(3);
  } else return undefined;
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1] ?? '';
    if (rest.length > 2 && !namespaceSubresources.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const [resource = '', name = '', subresource = ''] = rest;
  // `namespaces/<name>` itself: the namespace segment is the object's name, not a scope.
  if (resource === 'namespaces' && namespace !== '' && name === namespace) namespace = '';
  return { group, version, namespace, resource, name, subresource, legacyWatch };
}
