import { request } from 'node:https';
import type { RestClient } from '@kapi/client';
import { loadKubeconfig } from '@kapi/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customResourceDefinition } from './crd-fixtures.js';
import { kubectl, startServer, type TestServer } from './harness.js';

const group = 'created.example.com';
const widgets = `/apis/${group}/v1/namespaces/default/widgets`;

const spec = {
  type: 'object',
  properties: {
    size: { type: 'integer', default: 3 },
    mode: { type: 'string', nullable: true },
    ports: {
      type: 'array',
      items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } } },
    },
  },
};

/** The first line a watch of `path` from `resourceVersion` sends once `trigger` runs, and what `trigger` gave. */
async function firstWatchLine<T>(server: TestServer, path: string, resourceVersion: string, trigger: () => Promise<T>): Promise<[string, T]> {
  const config = loadKubeconfig(server.kubeconfig);
  const options = {
    ...(config.ca ? { ca: config.ca } : {}),
    ...(config.cert ? { cert: config.cert } : {}),
    ...(config.key ? { key: config.key } : {}),
    headers: config.token ? { authorization: `Bearer ${config.token}` } : {},
  };
  let triggered: Promise<T> | undefined;
  const line = await new Promise<string>((resolve, reject) => {
    const watch = request(`${config.server}${path}?watch=true&resourceVersion=${resourceVersion}`, options, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const end = text.indexOf('\n');
        if (end !== -1) {
          resolve(text.slice(0, end));
          watch.destroy();
        }
      });
      triggered = trigger();
      triggered.catch(reject);
    });
    watch.on('error', reject);
    watch.end();
  });
  // The event can arrive before the write's own answer.
  return [line, await triggered!];
}

/**
 * A custom resource's create answers, stores and announces the object pruned and defaulted once: the
 * response, a GET, a LIST from storage and the watch event carry the same object.
 */
describe('custom resource create: response, reads and watch event', () => {
  let server: TestServer;
  let client: RestClient;

  beforeAll(async () => {
    server = await startServer();
    client = server.client();
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(customResourceDefinition({ group, kind: 'Widget', spec })));
    await kubectl(server, ['wait', '--for=condition=Established', `crd/widgets.${group}`, '--timeout=30s']);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('the created object, pruned and defaulted, is what GET, LIST and the watch event show', async () => {
    const list = await client.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: widgets });
    const body = {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { unknown: 'pruned', mode: null, ports: [{ port: 80 }, { port: 443, protocol: 'UDP', extra: 1 }] },
    };
    const [line, created] = await firstWatchLine(server, widgets, list.metadata.resourceVersion, async () => {
      // Until the StorageVersion is published, writes get the barrier's 503.
      for (let attempt = 0; ; attempt++) {
        const answer = await client.raw({ method: 'POST', path: widgets, query: { fieldValidation: 'Ignore' }, body });
        if (answer.statusCode !== 503 || attempt === 100) return answer;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    expect(created.statusCode).toBe(201);
    const response = JSON.parse(created.body.toString('utf8')) as { spec: unknown; metadata: { resourceVersion: string } };
    expect(response.spec).toEqual({ size: 3, mode: null, ports: [{ port: 80, protocol: 'TCP' }, { port: 443, protocol: 'UDP' }] });

    const event = JSON.parse(line) as { type: string; object: unknown };
    expect(event.type).toBe('ADDED');
    expect(event.object).toEqual(response);
    const got = await client.raw({ method: 'GET', path: `${widgets}/w` });
    expect(got.body.toString('utf8')).toBe(created.body.toString('utf8'));
    const fromStorage = await client.request<{ items: unknown[] }>({ method: 'GET', path: widgets });
    expect(fromStorage.items).toEqual([response]);
  });
});
