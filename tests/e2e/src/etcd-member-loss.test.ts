import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient } from '@kapi/client';
import { startEtcdCluster, type EtcdCluster } from '@kapi/storage-etcd3/testing';
import { startServer, type TestServer } from './harness.js';

// A 3-member etcd on loopback; the leader is killed (SIGKILL) under writes, reads and an HTTP watch.
// After a short failover window no request may fail, and the watch must stay open and see every write.
const failoverWindowMs = 3000;
const path = '/api/v1/namespaces/default/configmaps';

let cluster: EtcdCluster;
let server: TestServer;
let admin: RestClient;

beforeAll(async () => {
  cluster = await startEtcdCluster(3);
  server = await startServer({
    args: ['--storage=etcd', `--etcd-servers=${cluster.members.map((member) => member.endpoint).join(',')}`],
  });
  admin = server.client();
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await cluster?.stop();
});

/** Opens an HTTP watch and collects the names of ADDED objects; `closed` turns true if it ends. */
function openWatch(resourceVersion: string) {
  const seen = new Set<string>();
  const state = { closed: false, seen };
  const url = new URL(`${path}?watch=true&resourceVersion=${resourceVersion}&timeoutSeconds=600`, server.url);
  const ca = admin.config.ca;
  const outgoing = httpsRequest(url, {
    ...(admin.config.token ? { headers: { Authorization: `Bearer ${admin.config.token}` } } : {}),
    ...(ca ? { ca } : {}),
    ...(admin.config.cert ? { cert: admin.config.cert } : {}),
    ...(admin.config.key ? { key: admin.config.key } : {}),
  });
  outgoing.on('response', (response: IncomingMessage) => {
    let buffer = '';
    response.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const event = JSON.parse(line) as { type: string; object: { metadata?: { name?: string } } };
        if (event.type === 'ADDED' && event.object.metadata?.name) seen.add(event.object.metadata.name);
      }
    });
    response.on('close', () => (state.closed = true));
  });
  outgoing.on('error', () => (state.closed = true));
  outgoing.end();
  return { state, stop: () => outgoing.destroy() };
}

describe('etcd member loss', () => {
  it('after the leader is killed, requests succeed after failover and the watch sees every write', async () => {
    const list = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path });
    const watch = openWatch(list.metadata.resourceVersion);
    const created: string[] = [];
    const lateFailures: string[] = [];
    let killedAt = 0;
    const deadline = () => killedAt > 0 && Date.now() > killedAt + failoverWindowMs + 5000;
    for (let index = 0; !deadline(); index++) {
      if (index === 20) {
        const leader = await cluster.leader();
        await leader.kill();
        killedAt = Date.now();
      }
      const started = Date.now();
      const name = `m-${index}`;
      const write = await admin.raw({
        method: 'POST',
        path,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { index: String(index) } },
      });
      if (write.statusCode === 201) created.push(name);
      const read = await admin.raw({ method: 'GET', path, query: { limit: 5 } });
      const afterWindow = killedAt > 0 && started > killedAt + failoverWindowMs;
      if (afterWindow && write.statusCode !== 201) lateFailures.push(`create ${name}: ${write.statusCode} ${write.body.toString()}`);
      if (afterWindow && read.statusCode !== 200) lateFailures.push(`list: ${read.statusCode} ${read.body.toString()}`);
    }
    expect(lateFailures).toEqual([]);
    expect(created.length).toBeGreaterThan(30);
    // Every acknowledged write reaches the watch, which is still open.
    const until = Date.now() + 10_000;
    while (created.some((name) => !watch.state.seen.has(name)) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(created.filter((name) => !watch.state.seen.has(name))).toEqual([]);
    expect(watch.state.closed).toBe(false);
    watch.stop();
  }, 90_000);
});
