import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, widget, widgetsPath, type TestServer } from '../test-support/test-server.js';

let api: TestServer;
const path = `${widgetsPath()}/a`;
const json = { 'Content-Type': 'application/json-patch+json' };
const merge = { 'Content-Type': 'application/merge-patch+json' };
const strategic = { 'Content-Type': 'application/strategic-merge-patch+json' };

beforeEach(async () => {
  api = await startTestServer();
  await api.call(
    'POST',
    widgetsPath(),
    widget(
      'a',
      { size: 1, ports: [{ name: 'http', port: 80 }] },
      { metadata: { name: 'a', finalizers: ['x'] } },
    ),
  );
});
afterEach(async () => {
  await api.server.shutdown();
});

async function failing(body: unknown, headers: Record<string, string>, target = path) {
  const before = await api.storage.revision();
  const result = await api.call('PATCH', target, body, headers);
  expect(await api.storage.revision()).toBe(before);
  return result;
}

describe('PATCH', () => {
  it('answers a patch that wrote with the object as stored, compact, its new resourceVersion last in metadata', async () => {
    const response = await fetch(`${api.url}${path}`, { method: 'PATCH', headers: merge, body: JSON.stringify({ metadata: { labels: { a: 'b' } } }) });
    const text = await response.text();
    const answered = JSON.parse(text) as { metadata: Record<string, unknown> };
    expect(text).toBe(JSON.stringify(answered));
    expect(Object.keys(answered.metadata).at(-1)).toBe('resourceVersion');
    expect(answered).toEqual((await api.call('GET', path)).body);
  });

  it('applies JSON patches and bumps generation', async () => {
    const result = await api.call(
      'PATCH',
      path,
      [
        { op: 'replace', path: '/spec/size', value: 4 },
        { op: 'add', path: '/metadata/labels', value: { a: 'b' } },
      ],
      json,
    );
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ spec: { size: 4 }, metadata: { labels: { a: 'b' }, generation: 2 } });
  });

  it('applies merge patches in the requested version', async () => {
    const result = await api.call(
      'PATCH',
      `${widgetsPath('default', 'v1beta1')}/a`,
      { spec: { sizeText: '8', color: null } },
      merge,
    );
    expect(result.body).toMatchObject({
      apiVersion: 'example.com/v1beta1',
      spec: { sizeText: '8', color: 'blue' },
    });
    expect((await api.call('GET', path)).body).toMatchObject({ spec: { size: 8 } });
  });

  it('applies strategic merge patches using the schema merge keys and metadata lists', async () => {
    const result = await api.call(
      'PATCH',
      path,
      {
        metadata: { finalizers: ['y'] },
        spec: {
          ports: [
            { name: 'https', port: 443 },
            { name: 'http', port: 8080 },
          ],
        },
      },
      strategic,
    );
    expect(result.body).toMatchObject({
      metadata: { finalizers: ['x', 'y'] },
      spec: {
        ports: [
          { name: 'http', port: 8080 },
          { name: 'https', port: 443 },
        ],
      },
    });
    const removed = await api.call(
      'PATCH',
      path,
      { spec: { ports: [{ name: 'http', $patch: 'delete' }] } },
      strategic,
    );
    expect((removed.body['spec'] as { ports: unknown[] }).ports).toEqual([{ name: 'https', port: 443 }]);
  });

  it('patches the status subresource only through /status', async () => {
    const main = await api.call('PATCH', path, { status: { phase: 'Running' } }, merge);
    expect(main.body['status']).toBeUndefined();
    const status = await api.call(
      'PATCH',
      `${path}/status`,
      { status: { phase: 'Running' }, spec: { size: 50 } },
      merge,
    );
    expect(status.body).toMatchObject({ status: { phase: 'Running' }, spec: { size: 1 } });
  });

  it('re-applies patches without resourceVersion on conflicts, so concurrent patches all land', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        api.call('PATCH', path, { metadata: { labels: { [`l${index}`]: 'x' } } }, merge),
      ),
    );
    expect(results.map((result) => result.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const labels = ((await api.call('GET', path)).body['metadata'] as { labels: Record<string, string> })
      .labels;
    expect(Object.keys(labels).sort()).toEqual(['l0', 'l1', 'l2', 'l3', 'l4', 'l5']);
  });

  it('honours a resourceVersion in the patch and dryRun', async () => {
    const conflict = await failing({ metadata: { resourceVersion: '999' }, spec: { size: 2 } }, merge);
    expect(conflict.status).toBe(409);
    expect(conflict.body['reason']).toBe('Conflict');
    const dry = await failing({ spec: { size: 2 } }, merge, `${path}?dryRun=All`);
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ spec: { size: 2 } });
  });

  it('rejects bad patches as upstream without touching storage', async () => {
    const testFailed = await failing([{ op: 'test', path: '/spec/size', value: 99 }], json);
    expect(testFailed.status).toBe(422);
    expect(testFailed.body['message']).toBe('the server rejected our request due to an error in our request');
    expect((await failing({ op: 'add' }, json)).status).toBe(400);
    expect((await failing('{nope', merge)).status).toBe(400);
    const nullBody = await failing('null', merge);
    expect(nullBody.body['message']).toBe('Invalid JSON Patch');
    const invalid = await failing({ spec: { size: -3 } }, merge);
    expect(invalid.status).toBe(422);
    const strict = await failing({ spec: { bogus: 1 } }, merge, `${path}?fieldValidation=Strict`);
    expect(strict.status).toBe(422);
    expect(String(strict.body['message'])).toContain('strict decoding error: unknown field "spec.bogus"');
    const warned = await api.call('PATCH', path, { spec: { bogus: 1 } }, merge);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.bogus\\""');
    const kindChange = await failing({ kind: 'Gadget' }, merge);
    expect(kindChange.status).toBe(422);
    const missing = await failing({ spec: { size: 2 } }, merge, `${widgetsPath()}/zz`);
    expect(missing.status).toBe(404);
    expect(missing.body['message']).toBe('widgets.example.com "zz" not found');
  });

  it('refuses unknown patch types with 415 listing the accepted types as upstream', async () => {
    const other = await failing({}, { 'Content-Type': 'application/json' });
    expect(other.status).toBe(415);
    expect(other.body['reason']).toBe('UnsupportedMediaType');
    expect(other.body['message']).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });
});
