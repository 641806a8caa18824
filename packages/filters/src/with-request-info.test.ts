import { afterEach, describe, expect, it } from 'vitest';
import { buildHandlerChain, requestContext } from './handler.js';
import { withRequestInfo } from './with-request-info.js';
import { okHandler, serve, type TestServer } from './test-support.js';

describe('withRequestInfo', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const reportContext = okHandler((request) => {
    const context = requestContext(request);
    return { info: context.requestInfo, longRunning: context.longRunning };
  });

  it('puts the parsed request info in the context', async () => {
    server = await serve(buildHandlerChain([withRequestInfo()], reportContext));
    const response = await server.send('/apis/apps/v1/namespaces/default/deployments/web/status', {
      method: 'PUT',
    });
    expect(response.status).toBe(200);
    expect(response.json?.info).toMatchObject({
      isResourceRequest: true,
      verb: 'update',
      apiGroup: 'apps',
      namespace: 'default',
      resource: 'deployments',
      name: 'web',
      subresource: 'status',
    });
    expect(response.json?.longRunning).toBe(false);
  });

  it('marks watches long-running, legacy path and query alike', async () => {
    server = await serve(buildHandlerChain([withRequestInfo()], reportContext));
    for (const path of ['/api/v1/pods?watch=true', '/api/v1/watch/namespaces/a/pods']) {
      const response = await server.send(path);
      expect(response.json?.longRunning).toBe(true);
      expect((response.json?.info as { verb: string }).verb).toBe('watch');
    }
  });

  it('accepts a custom long-running check', async () => {
    server = await serve(
      buildHandlerChain([withRequestInfo({ longRunning: (info) => info.path === '/slow' })], reportContext),
    );
    expect((await server.send('/slow')).json?.longRunning).toBe(true);
    expect((await server.send('/api/v1/pods?watch=1')).json?.longRunning).toBe(false);
  });

  it('answers 404 for a special verb with nothing after it (upstream answers 500)', async () => {
    server = await serve(buildHandlerChain([withRequestInfo()], reportContext));
    const response = await server.send('/api/v1/watch');
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });
});
