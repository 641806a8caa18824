import type { KubeObject } from '@kapi/apimachinery';
import { Store, type Codec } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, widget, widgetsPath, type TestServer } from '../test-support/test-server.js';
import { withResourceVersion } from './created-encoding.js';

/** The JSON the store returns an object as: its stored JSON parsed, with the resourceVersion set last. */
function asReturned(object: Record<string, unknown>, resourceVersion: string): string {
  const copy = JSON.parse(JSON.stringify(object)) as { metadata: Record<string, unknown> };
  copy.metadata['resourceVersion'] = resourceVersion;
  return JSON.stringify(copy);
}

describe('withResourceVersion', () => {
  const objects: Array<[string, Record<string, unknown>]> = [
    ['metadata first', { metadata: { name: 'a' }, apiVersion: 'v1', kind: 'ConfigMap' }],
    ['empty metadata', { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }],
    [
      'braces, quotes, backslashes and non-ASCII in strings; "metadata" as a value and as a nested key',
      {
        kind: 'metadata',
        data: { metadata: '{"metadata":{}}', '"metadata":': '}\\', 'ünï': '😀 \\" }]' },
        metadata: {
          name: 'a',
          labels: { 'x/y': '}' },
          annotations: { '"metadata":{': '\\\\"', nested: '[{"a":"}"}]' },
          managedFields: [{ manager: 'm', fieldsV1: { 'f:data': { '.': {} } } }],
        },
        spec: { list: [{ metadata: { name: 'inner' } }] },
      },
    ],
    [
      'long strings (searched natively) with escaped quotes and backslash runs at every offset, before metadata',
      {
        apiVersion: 'v1',
        data: Object.fromEntries(
          Array.from({ length: 40 }, (_, offset) => [`k${offset}`, `${'x'.repeat(offset)}\\"}{"metadata":{"\\${'y'.repeat(40)}"\\`]),
        ),
        kind: 'ConfigMap',
        metadata: { name: 'a', annotations: { long: `${'z'.repeat(100)}"}\\` } },
      },
    ],
  ];
  for (const [name, object] of objects) {
    it(`adds the field where JSON.stringify puts it: ${name}`, () => {
      const spliced = withResourceVersion(Buffer.from(JSON.stringify(object)), '42');
      expect(spliced?.toString()).toBe(asReturned(object, '42'));
    });
  }

  it('gives nothing without a top-level metadata object', () => {
    expect(withResourceVersion(Buffer.from('{"kind":"metadata","spec":{"metadata":{}}}'), '1')).toBeUndefined();
    expect(withResourceVersion(Buffer.from('{"metadata":null}'), '1')).toBeUndefined();
  });
});

describe('the create response', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is byte for byte what a GET of the created object answers', async () => {
    server = await startTestServer();
    const body = {
      spec: { size: 3, color: 'r"e}d' },
      kind: 'Widget',
      metadata: { generateName: 'w-', labels: { a: 'b' }, annotations: { note: 'ünï {"metadata":1} 😀' } },
      apiVersion: 'example.com/v1',
    };
    const created = await fetch(`${server.url}${widgetsPath()}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'create-test' },
      body: JSON.stringify(body),
    });
    expect(created.status).toBe(201);
    const createdText = await created.text();
    const object = JSON.parse(createdText) as KubeObject;
    expect(object.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(object.metadata.managedFields).toHaveLength(1);
    const read = await fetch(`${server.url}${widgetsPath()}/${object.metadata.name}`);
    expect(await read.text()).toBe(createdText);
  });

  it('reuses the stored bytes when the codec decodes verbatim, and encodes the object otherwise', async () => {
    // A codec that marks what it stores and hides the mark when decoding, while claiming to decode
    // verbatim: the mark shows in a response only if the response is the stored bytes.
    const backend = new MemoryBackend();
    server = await startTestServer({
      storage: ({ codec }) => {
        const marking: Codec = {
          encode: (object) => codec.encode({ ...object, marked: true }),
          decode: (data) => {
            const object = codec.decode(data);
            delete object['marked'];
            return object;
          },
          decodesVerbatim: () => true,
        };
        return new Store({ kv: backend, codec: marking });
      },
    });
    const v1 = await server.call('POST', widgetsPath(), widget('one'));
    expect(v1.status).toBe(201);
    expect(v1.body['marked']).toBe(true);
    // Converted to the request's version, or pretty-printed: encoded from the object.
    const beta = await server.call('POST', widgetsPath('default', 'v1beta1'), {
      ...widget('two'),
      apiVersion: 'example.com/v1beta1',
      spec: { sizeText: '2' },
    });
    expect(beta.status).toBe(201);
    expect(beta.body['apiVersion']).toBe('example.com/v1beta1');
    expect(beta.body['marked']).toBeUndefined();
    const pretty = await server.call('POST', `${widgetsPath()}?pretty=true`, widget('three'));
    expect(pretty.status).toBe(201);
    expect(pretty.body['marked']).toBeUndefined();
  });
});
