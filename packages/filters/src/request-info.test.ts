import { describe, expect, it } from 'vitest';
import { StatusError } from '@kapi/apimachinery';
import { isLongRunningRequest, parseRequestInfo, pathSegments } from './request-info.js';
import { splitRequestTarget } from './handler.js';

function pick(method: string, url: string) {
  const info = parseRequestInfo(method, url);
  return {
    isResourceRequest: info.isResourceRequest,
    verb: info.verb,
    apiPrefix: info.apiPrefix,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    namespace: info.namespace,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

describe('parseRequestInfo', () => {
  // Cases from upstream's requestinfo_test.go.
  const cases: Array<[string, string, string, string, string, string, string, string, string]> = [
    // method, url, verb, prefix, group, version, namespace, resource, name / subresource as "name|sub"
    ['GET', '/api/v1/namespaces', 'list', 'api', '', 'v1', '', 'namespaces', ''],
    ['GET', '/api/v1/namespaces/other', 'get', 'api', '', 'v1', 'other', 'namespaces', 'other'],
    ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', 'foo'],
    ['GET', '/api/v1/namespaces/other/pods', 'list', 'api', '', 'v1', 'other', 'pods', ''],
    ['HEAD', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', 'foo'],
    ['GET', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', ''],
    ['HEAD', '/api/v1/pods', 'list', 'api', '', 'v1', '', 'pods', ''],
    ['GET', '/api/v1/namespaces/other/pods/foo', 'get', 'api', '', 'v1', 'other', 'pods', 'foo'],
    ['GET', '/api/v1/namespaces/other/pods', 'list', 'api', '', 'v1', 'other', 'pods', ''],
    ['GET', '/api/v1/nodes/mynode', 'get', 'api', '', 'v1', '', 'nodes', 'mynode'],
    ['GET', '/api/v1/watch/pods', 'watch', 'api', '', 'v1', '', 'pods', ''],
    ['GET', '/api/v1/pods?watch=true', 'watch', 'api', '', 'v1', '', 'pods', ''],
    ['GET', '/api/v1/pods?watch=1', 'watch', 'api', '', 'v1', '', 'pods', ''],
    ['GET', '/api/v1/pods?watch=false', 'list', 'api', '', 'v1', '', 'pods', ''],
    ['GET', '/api/v1/pods?watch=0', 'list', 'api', '', 'v1', '', 'pods', ''],
    ['GET', '/api/v1/watch/namespaces/other/pods', 'watch', 'api', '', 'v1', 'other', 'pods', ''],
    ['GET', '/api/v1/watch/namespaces/other/pods/foo', 'watch', 'api', '', 'v1', 'other', 'pods', 'foo'],
    ['POST', '/api/v1/namespaces/other/pods', 'create', 'api', '', 'v1', 'other', 'pods', ''],
    ['PUT', '/api/v1/namespaces/other/pods/foo', 'update', 'api', '', 'v1', 'other', 'pods', 'foo'],
    ['PATCH', '/api/v1/namespaces/other/pods/foo', 'patch', 'api', '', 'v1', 'other', 'pods', 'foo'],
    ['DELETE', '/api/v1/namespaces/other/pods/foo', 'delete', 'api', '', 'v1', 'other', 'pods', 'foo'],
    ['DELETE', '/api/v1/namespaces/other/pods', 'deletecollection', 'api', '', 'v1', 'other', 'pods', ''],
    ['POST', '/api/v1/namespaces', 'create', 'api', '', 'v1', '', 'namespaces', ''],
    [
      'GET',
      '/api/v1/namespaces/other/pods/foo/status',
      'get',
      'api',
      '',
      'v1',
      'other',
      'pods',
      'foo|status',
    ],
    ['PUT', '/api/v1/namespaces/foo/status', 'update', 'api', '', 'v1', 'foo', 'namespaces', 'foo|status'],
    [
      'PUT',
      '/api/v1/namespaces/foo/finalize',
      'update',
      'api',
      '',
      'v1',
      'foo',
      'namespaces',
      'foo|finalize',
    ],
    [
      'GET',
      '/apis/apps/v1/namespaces/default/deployments',
      'list',
      'apis',
      'apps',
      'v1',
      'default',
      'deployments',
      '',
    ],
    [
      'PUT',
      '/apis/apps/v1/namespaces/default/deployments/web/status',
      'update',
      'apis',
      'apps',
      'v1',
      'default',
      'deployments',
      'web|status',
    ],
    [
      'GET',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/admin',
      'get',
      'apis',
      'rbac.authorization.k8s.io',
      'v1',
      '',
      'clusterroles',
      'admin',
    ],
    [
      'GET',
      '/apis/apps/v1/watch/namespaces/default/deployments',
      'watch',
      'apis',
      'apps',
      'v1',
      'default',
      'deployments',
      '',
    ],
    [
      'GET',
      '/apis/example.com/v1/widgets?watch=true&resourceVersion=5',
      'watch',
      'apis',
      'example.com',
      'v1',
      '',
      'widgets',
      '',
    ],
    ['GET', '/api/v1/namespaces/default/pods/p/log', 'get', 'api', '', 'v1', 'default', 'pods', 'p|log'],
    ['OPTIONS', '/api/v1/pods', '', 'api', '', 'v1', '', 'pods', ''],
  ];
  it.each(cases)(
    '%s %s',
    (method, url, verb, apiPrefix, apiGroup, apiVersion, namespace, resource, nameAndSub) => {
      const [name = '', subresource = ''] = nameAndSub.split('|');
      expect(pick(method, url)).toEqual({
        isResourceRequest: true,
        verb,
        apiPrefix,
        apiGroup,
        apiVersion,
        namespace,
        resource,
        subresource,
        name,
      });
    },
  );

  it('reads the path as Go does: doubled slashes and percent-encoding', () => {
    expect(pick('GET', '//api/v1/namespaces/a%20b/pods//')).toMatchObject({
      isResourceRequest: true,
      namespace: 'a b',
      resource: 'pods',
      verb: 'list',
    });
    expect(parseRequestInfo('GET', '/api/v1/pods#frag').path).toBe('/api/v1/pods');
    expect(parseRequestInfo('GET', '/foo%2Fbar').path).toBe('/foo/bar');
  });

  it('keeps the parts after the namespace and the path', () => {
    const info = parseRequestInfo('GET', '/api/v1/namespaces/other/pods/foo/status?x=1');
    expect(info.parts).toEqual(['pods', 'foo', 'status']);
    expect(info.path).toBe('/api/v1/namespaces/other/pods/foo/status');
    expect(parseRequestInfo('GET', '/api/v1/namespaces/foo').parts).toEqual(['namespaces', 'foo']);
  });

  it.each([
    ['GET', '/healthz', 'get'],
    ['GET', '/', 'get'],
    ['GET', '/api', 'get'],
    ['GET', '/api/v1', 'get'],
    ['GET', '/apis', 'get'],
    ['GET', '/apis/apps', 'get'],
    ['GET', '/apis/apps/v1', 'get'],
    ['GET', '/version', 'get'],
    ['GET', '/openapi/v2', 'get'],
    ['POST', '/metrics/reset', 'post'],
    ['GET', '/other/v1/pods', 'get'],
    ['HEAD', '/readyz', 'head'],
  ])('%s %s is a non-resource request', (method, url, verb) => {
    const info = parseRequestInfo(method, url);
    expect(info.isResourceRequest).toBe(false);
    expect(info.verb).toBe(verb);
    expect(info.path).toBe(url);
    expect(info.resource).toBe('');
  });

  it('rejects a special verb with nothing after it: 404 (upstream answers 500 for this client error)', () => {
    let caught: unknown;
    try {
      parseRequestInfo('GET', '/api/v1/watch');
    } catch (error) {
      caught = error;
    }
    expect(StatusError.isInstance(caught)).toBe(true);
    expect([(caught as StatusError).code, (caught as StatusError).reason]).toEqual([404, 'NotFound']);
  });

  it('marks watches and streaming subresources long-running', () => {
    expect(isLongRunningRequest(parseRequestInfo('GET', '/api/v1/pods?watch=true'))).toBe(true);
    expect(isLongRunningRequest(parseRequestInfo('GET', '/api/v1/watch/pods'))).toBe(true);
    expect(isLongRunningRequest(parseRequestInfo('GET', '/api/v1/namespaces/a/pods/p/log'))).toBe(true);
    expect(isLongRunningRequest(parseRequestInfo('POST', '/api/v1/namespaces/a/pods/p/exec'))).toBe(true);
    expect(isLongRunningRequest(parseRequestInfo('GET', '/api/v1/pods'))).toBe(false);
    expect(isLongRunningRequest(parseRequestInfo('GET', '/api/v1/pods?watch=false'))).toBe(false);
    expect(isLongRunningRequest(parseRequestInfo('GET', '/healthz'))).toBe(false);
  });
});

describe('pathSegments', () => {
  it('drops leading and trailing slashes and keeps inner empty segments', () => {
    expect(pathSegments('/api/v1/')).toEqual(['api', 'v1']);
    expect(pathSegments('///apis//g/')).toEqual(['apis', '', 'g']);
    expect(pathSegments('/')).toEqual([]);
    expect(pathSegments('')).toEqual([]);
    expect(pathSegments('healthz')).toEqual(['healthz']);
  });
});

describe('splitRequestTarget', () => {
  it('splits the path once into segments and reads the query on demand', () => {
    const target = splitRequestTarget('/api/v1/namespaces/a%20b/pods?watch=1&limit=5#frag');
    expect(target.path).toBe('/api/v1/namespaces/a b/pods');
    expect(target.segments).toEqual(['api', 'v1', 'namespaces', 'a b', 'pods']);
    expect(target.segments).toBe(target.segments);
    expect([...target.query]).toEqual([['watch', '1'], ['limit', '5']]);
    expect(parseRequestInfo('GET', target).verb).toBe('watch');
  });

  it('gives targets without a query one shared empty query that refuses changes', () => {
    const first = splitRequestTarget('/api/v1/pods');
    const second = splitRequestTarget('/api/v1/pods?');
    expect(first.query.size).toBe(0);
    expect(second.query).toBe(first.query);
    expect(() => first.query.set('watch', '1')).toThrow(TypeError);
    expect(() => first.query.append('watch', '1')).toThrow(TypeError);
    expect(() => first.query.delete('watch')).toThrow(TypeError);
    expect(splitRequestTarget('/api/v1/pods').query.get('watch')).toBeNull();
  });

  it('names the URL in the error of a special verb with nothing after it, from a split target too', () => {
    expect(() => parseRequestInfo('GET', splitRequestTarget('/api/v1/watch?limit=1'))).toThrow(
      'failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch?limit=1',
    );

  });
});
