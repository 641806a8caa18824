import { mkdtempSync, writeFileSync } from 'node:fs';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';

// Twelve clients that trickle a chunked POST body and never finish it, against a server with ten
// mutating seats: before the body was read ahead of max-in-flight, they held every seat and every
// write (even an admin's) got 429 until the request timeout.
const seats = 10;
const slowClients = 12;
const path = '/api/v1/namespaces/default/configmaps';

let server: TestServer;
let writer: RestClient;
let ca: string | undefined;
const slow: ClientRequest[] = [];
const timers: NodeJS.Timeout[] = [];

beforeAll(async () => {
  const tokens = join(mkdtempSync(join(tmpdir(), 'kapi-slow-')), 'tokens.csv');
  writeFileSync(tokens, 'writer-token,writer,2001,"writers"\n');
  server = await startServer({
    args: [
      `--token-auth-file=${tokens}`,
      '--authorization-mode=AlwaysAllow',
      `--max-mutating-requests-inflight=${seats}`,
    ],
  });
  ca = server.client().config.ca;
  writer = new RestClient({ server: server.url, token: 'writer-token', ...(ca ? { ca } : {}) });
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  for (const request of slow) request.destroy();
  writer?.close();
  await server?.stop();
});

/** Opens a chunked POST whose body arrives one byte every 200 ms and never ends. */
function startSlowClient(): void {
  const url = new URL(path, server.url);
  const request = httpsRequest({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { Authorization: 'Bearer writer-token', 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
    ...(ca ? { ca } : {}),
  });
  request.on('error', () => undefined);
  request.write('{');
  timers.push(setInterval(() => request.write(' '), 200));
  slow.push(request);
}

describe('slow request bodies do not stall other clients', () => {
  it('a normal writer succeeds and probes answer while 12 clients trickle their bodies', async () => {
    for (let index = 0; index < slowClients; index++) startSlowClient();
    // Let every slow request get through the filters to where it waits.
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const writes = 100;
    let succeeded = 0;
    const failures: number[] = [];
    let probesOk = 0;
    for (let index = 0; index < writes; index++) {
      const response = await writer.raw({
        method: 'POST',
        path,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w-${index}` }, data: { a: '1' } },
      });
      if (response.statusCode === 201) succeeded++;
      else failures.push(response.statusCode);
      if (index % 10 === 0) {
        const probe = await writer.raw({ method: 'GET', path: '/readyz' });
        if (probe.statusCode === 200) probesOk++;
      }
    }
    expect(failures).toEqual([]);
    expect(succeeded / writes).toBeGreaterThanOrEqual(0.99);
    expect(probesOk).toBe(writes / 10);
    // The slow clients are still connected and unanswered: the writes went past them, not after them.
    expect(slow.every((request) => !request.destroyed && request.writable)).toBe(true);
  });
});
