import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeconfig, type RestClient } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';

/**
 * LISTs and GETs written from the objects' cached JSON bytes (spliced into the list envelope, streamed in
 * chunks) carry the same content as the encoder's output: every compact response is compared with the
 * `?pretty=true` response of the same read, which is still one `JSON.stringify` of the whole body.
 */
let server: TestServer;
let client: RestClient;
const namespace = 'list-bytes';
const path = `/api/v1/namespaces/${namespace}/configmaps`;
const count = 120;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The admin's URL prefix and request options (CA, client certificate or token). */
function admin(headers: Record<string, string> = {}) {
  const config = loadKubeconfig(server.kubeconfig);
  return {
    server: config.server,
    options: {
      ...(config.ca ? { ca: config.ca } : {}),
      ...(config.cert ? { cert: config.cert } : {}),
      ...(config.key ? { key: config.key } : {}),
      headers: { ...(config.token ? { authorization: `Bearer ${config.token}` } : {}), ...headers },
    },
  };
}

/** One HTTPS request with the admin credentials, the body read whole. */
function send(method: 'GET' | 'HEAD', target: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { server: base, options } = admin(headers);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${base}${target}`,
      { method, ...options },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const json = (answer: Answer): Record<string, unknown> => JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
const withQuery = (query: string, extra: string) => `${path}?${query}${query ? '&' : ''}${extra}`;

/**
 * A list without what may move between two reads of the current state (the read's resourceVersion and the
 * continue token that embeds it): the kind, apiVersion, items and remainingItemCount stay.
 */
function stable(list: Record<string, unknown>): Record<string, unknown> {
  const { resourceVersion, continue: token, ...metadata } = list['metadata'] as Record<string, unknown>;
  return { ...list, metadata: { ...metadata, resourceVersion: typeof resourceVersion, continue: typeof token } };
}

/** The compact answer of `query`, checked against the pretty (whole-body encoder) answer of the same read. */
async function compactEqualsPretty(query: string): Promise<Record<string, unknown>> {
  const compact = await send('GET', query ? `${path}?${query}` : path);
  const pretty = await send('GET', withQuery(query, 'pretty=true'));
  expect(compact.status).toBe(200);
  expect(Number(compact.headers['content-length'])).toBe(compact.body.length);
  expect(compact.body.toString('utf8')).not.toContain('\n');
  const parsed = json(compact);
  expect(stable(parsed)).toEqual(stable(json(pretty)));
  return parsed;
}

const names = (list: Record<string, unknown>) =>
  (list['items'] as Array<{ metadata: { name: string } }>).map((item) => item.metadata.name);

beforeAll(async () => {
  server = await startServer();
  client = server.client();
  await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } });
  for (let i = 0; i < count; i++) {
    const name = `cm-${String(i).padStart(3, '0')}`;
    await client.request({
      method: 'POST',
      path,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { parity: i % 2 ? 'odd' : 'even' } }, data: { payload: `${'x'.repeat(1500)}-${i}`, quote: 'a "quoted" \\ é ✓' } },
    });
  }
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('LIST and GET from cached bytes', () => {
  it('a LIST from the watch cache (> 64 KB, several chunks) equals the encoded list, for the cache and the storage', async () => {
    const cached = await compactEqualsPretty('resourceVersion=0');
    expect(names(cached)).toHaveLength(count);
    expect(cached['kind']).toBe('ConfigMapList');
    expect(cached['apiVersion']).toBe('v1');
    expect((cached['metadata'] as { resourceVersion: string }).resourceVersion).toMatch(/^\d+$/);
    const consistent = await compactEqualsPretty('');
    expect(consistent['items']).toEqual(cached['items']);
  });

  it('pages with limit and continue: every page equals its encoded form and the pages make up the list', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await compactEqualsPretty(`limit=50${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      const metadata = page['metadata'] as { continue?: string; remainingItemCount?: number; resourceVersion: string };
      seen.push(...names(page));
      token = metadata.continue;
      if (token) expect(metadata.remainingItemCount).toBe(count - seen.length);
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: count }, (_, i) => `cm-${String(i).padStart(3, '0')}`));
  });

  it('label and field selectors still filter on the objects', async () => {
    const odd = await compactEqualsPretty('resourceVersion=0&labelSelector=parity%3Dodd');
    expect(names(odd)).toHaveLength(count / 2);
    const one = await compactEqualsPretty('resourceVersion=0&fieldSelector=metadata.name%3Dcm-007');
    expect(names(one)).toEqual(['cm-007']);
    const none = await send('GET', `${path}?resourceVersion=0&labelSelector=parity%3Dnone`);
    expect(none.body.toString('utf8')).toMatch(/"items":\[\]\}$/);
  });

  it('a GET and a LIST after an update serve the new version, not the old bytes', async () => {
    const before = json(await send('GET', `${path}/cm-010`));
    await compactEqualsPretty('resourceVersion=0');
    await client.request({ method: 'PATCH', path: `${path}/cm-010`, contentType: 'application/merge-patch+json', body: { data: { payload: 'changed' } } });
    const after = json(await send('GET', `${path}/cm-010`));
    expect((after['data'] as { payload: string }).payload).toBe('changed');
    expect((after['metadata'] as { resourceVersion: string }).resourceVersion).not.toBe((before['metadata'] as { resourceVersion: string }).resourceVersion);
    const list = await compactEqualsPretty('resourceVersion=0');
    const item = (list['items'] as Array<Record<string, unknown>>).find((entry) => (entry['metadata'] as { name: string }).name === 'cm-010');
    expect(item).toEqual(after);
  });

  it('a GET is the object the LIST holds; a HEAD of a LIST sends its length and no body', async () => {
    const list = await compactEqualsPretty('resourceVersion=0');
    const get = await send('GET', `${path}/cm-042`);
    expect(Number(get.headers['content-length'])).toBe(get.body.length);
    expect(json(get)).toEqual((list['items'] as unknown[])[42]);
    const full = await send('GET', `${path}?resourceVersion=0`);
    const head = await send('HEAD', `${path}?resourceVersion=0`);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBe(full.body.length);
  });

  it('Table and YAML LISTs are still served', async () => {
    const table = json(await send('GET', `${path}?limit=5`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }));
    expect(table['kind']).toBe('Table');
    expect(table['rows']).toHaveLength(5);
    const yaml = await send('GET', `${path}?limit=2`, { accept: 'application/yaml' });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.body.toString('utf8')).toMatch(/^apiVersion: v1\n(.|\n)*^kind: ConfigMapList$/m);
  });

  it('a watch event line carries the same object as a GET', async () => {
    const list = json(await send('GET', `${path}?limit=1`));
    const resourceVersion = (list['metadata'] as { resourceVersion: string }).resourceVersion;
    const { server: base, options } = admin();
    const line = await new Promise<string>((resolve, reject) => {
      const watch = request(
        `${base}${path}?watch=true&resourceVersion=${resourceVersion}`,
        options,
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
            const end = text.indexOf('\n');
            if (end !== -1) {
              resolve(text.slice(0, end));
              watch.destroy();
            }
          });
        },
      );
      watch.on('error', reject);
      watch.end();
      void client.request({ method: 'PATCH', path: `${path}/cm-011`, contentType: 'application/merge-patch+json', body: { data: { payload: 'watched' } } });
    });
    const event = JSON.parse(line) as { type: string; object: unknown };
    expect(event.type).toBe('MODIFIED');
    expect(event.object).toEqual(json(await send('GET', `${path}/cm-011`)));
  });
});
