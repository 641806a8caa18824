import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { releaseRequestTarget, requestContext, requestTarget, requestWarnings } from './handler.js';

function request(url: string): IncomingMessage {
  const message = new IncomingMessage(new Socket());
  message.url = url;
  return message;
}

describe('requestTarget', () => {
  it('shares one frozen segment array between the requests for the same path', () => {
    const first = requestTarget(request('/api/v1/namespaces/shared/configmaps?limit=1')).segments;
    const second = requestTarget(request('/api/v1/namespaces/shared/configmaps')).segments;
    expect(second).toBe(first);
    expect(first).toEqual(['api', 'v1', 'namespaces', 'shared', 'configmaps']);
    expect(Object.isFrozen(first)).toBe(true);
    expect(requestTarget(request('/api/v1/namespaces/other/configmaps')).segments).not.toBe(first);
  });

  it('parses the URL once per request, and again after releaseRequestTarget', () => {
    const watch = request('/api/v1/namespaces/a/configmaps?watch=1&resourceVersion=5');
    const target = requestTarget(watch);
    expect(requestTarget(watch)).toBe(target);
    expect(target.segments).toEqual(['api', 'v1', 'namespaces', 'a', 'configmaps']);
    releaseRequestTarget(watch);
    const again = requestTarget(watch);
    expect(again).not.toBe(target);
    expect(again.path).toBe('/api/v1/namespaces/a/configmaps');
    expect(again.segments).toEqual(target.segments);
    expect(again.query.get('resourceVersion')).toBe('5');
  });
});

describe('requestWarnings', () => {
  it('reads no warnings without making a list, and the ones added through the context', () => {
    const get = request('/api/v1/namespaces');
    expect(requestWarnings(get)).toEqual([]);
    expect(requestWarnings(get)).toBe(requestWarnings(request('/other'))); // the shared empty list
    requestContext(get).warnings.push('unknown field "x"');
    expect(requestWarnings(get)).toEqual(['unknown field "x"']);
  });
});
