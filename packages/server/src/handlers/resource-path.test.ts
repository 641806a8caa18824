import { describe, expect, it } from 'vitest';
import { parseRequestInfo } from '@kapi/filters';
import { splitRequestTarget as requestTarget } from '@kapi/filters';
import { parseResourcePath } from './resource-path.js';

describe('parseResourcePath', () => {
  it('parses core, group, namespaced, cluster, subresource and legacy watch paths', () => {
    expect(parseResourcePath('/api/v1/namespaces/default/pods/a/status')).toEqual({
      group: '',
      version: 'v1',
      namespace: 'default',
      resource: 'pods',
      name: 'a',
      subresource: 'status',
      legacyWatch: false,
    });
    expect(parseResourcePath('/apis/example.com/v1/widgets')).toMatchObject({
      group: 'example.com',
      resource: 'widgets',
      namespace: '',
    });
    expect(parseResourcePath('/apis/example.com/v1/watch/namespaces/ns/widgets/x')).toMatchObject({
      legacyWatch: true,
      namespace: 'ns',
      resource: 'widgets',
      name: 'x',
    });
    expect(parseResourcePath('/api/v1/namespaces/foo')).toMatchObject({
      resource: 'namespaces',
      name: 'foo',
      namespace: '',
    });
    expect(parseResourcePath('/api/v1/namespaces/foo/status')).toMatchObject({
      resource: 'namespaces',
      name: 'foo',
      subresource: 'status',
    });
    expect(parseResourcePath('/api/v1')).toBeUndefined();
    expect(parseResourcePath('/healthz')).toBeUndefined();
  });

  it('agrees with the filters RequestInfo on namespace, resource and name (no dot-segment normalisation)', () => {
    for (const url of [
      '/api/v1/namespaces/allowed/configmaps/../../forbidden/configmaps/x',
      '/api/v1/namespaces/a%2Fb/configmaps/x',
      '/api/v1/namespaces//configmaps/x',
      '//apis/example.com/v1/namespaces/ns/widgets/a/status?watch=1',
      '/apis/example.com/v1/watch/namespaces/ns/widgets/a',
      '/api/v1/namespaces/ns/pods/a%20b',
    ]) {
      const info = parseRequestInfo('GET', url);
      const parsed = parseResourcePath(requestTarget(url).path);
      // Either no route at all (404), or the same object the authorizer was asked about.
      if (!parsed) continue;
      expect({
        namespace: parsed.namespace,
        resource: parsed.resource,
        name: parsed.name,
        subresource: parsed.subresource,
      }).toEqual({
        namespace: info.namespace,
        resource: info.resource,
        name: info.name,
        subresource: info.subresource,
      });
    }
    expect(
      parseResourcePath(
        requestTarget('/api/v1/namespaces/allowed/configmaps/../../forbidden/configmaps/x').path,
      ),
    ).toBeUndefined();
    expect(requestTarget('/api/v1/namespaces/a/pods/%zz').path).toBe('/api/v1/namespaces/a/pods/%zz');
  });
});
