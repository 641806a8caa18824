import { describe, expect, it } from 'vitest';
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
});
