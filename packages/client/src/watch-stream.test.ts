import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from './rest-client.js';

// A plain HTTP endpoint that streams watch lines split across arbitrary chunk boundaries.
let server: http.Server;
let client: RestClient;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.searchParams.get('watch') !== 'true') {
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'nope' }));
      return;
    }
    response.writeHead(200, { 'Content-Type': 'application/json' });
    const lines =
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '2' } } }) +
      '\n' +
      JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } }) +
      '\n';
    response.write(lines.slice(0, 17));
    setTimeout(() => {
      response.write(lines.slice(17));
      response.end();
    }, 10);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new RestClient({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
});

afterAll(async () => {
  client.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('RestClient.watch', () => {
  it('decodes events split across chunks', async () => {
    const stream = await client.watch({ path: '/api/v1/configmaps' });
    const seen: string[] = [];
    for await (const event of stream) seen.push(`${event.type}:${(event.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion}`);
    expect(seen).toEqual(['ADDED:2', 'BOOKMARK:9']);
  });

  it('throws the server Status for a failed request', async () => {
    await expect(client.request({ method: 'GET', path: '/api/v1/configmaps' })).rejects.toMatchObject({
      status: { code: 404, reason: 'NotFound', message: 'nope' },
    });
  });
});
