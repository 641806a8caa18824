import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '../resource-definition.js';
import { buildTable, type TableOptions } from './table.js';
import { writeTable } from './table-writer.js';

const now = new Date('2026-01-01T01:00:00Z');
const sizeOf = vi.fn((object: KubeObject) => Object.keys((object['data'] as object | undefined) ?? {}).length);
const definition: ResourceDefinition = {
  group: '',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  versions: ['v1'],
  printerColumns: [
    { name: 'Data', type: 'integer', jsonPath: '.data', cell: sizeOf },
    { name: 'Label', type: 'string', jsonPath: '.metadata.labels.tier' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    { name: 'Seen', type: 'date', jsonPath: '.status.seen' },
  ],
};

/** Objects as a watch cache holds them: the same (read-only) objects on every read. */
const objects: KubeObject[] = Array.from({ length: 300 }, (_, i) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${i}`, namespace: 'default', creationTimestamp: `2026-01-01T00:${String(i % 60).padStart(2, '0')}:00Z`, ...(i % 2 ? { labels: { tier: `"é✓${i}` } } : {}) },
  data: Object.fromEntries(Array.from({ length: i % 4 }, (_, key) => [`k${key}`, 'x'.repeat(300)])),
  ...(i % 3 === 0 ? { status: { seen: i % 2 ? 'not a date' : '2025-12-31T00:00:00Z' } } : {}),
}));

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** The body a node:http server sends for `writeTable(objects)`. */
async function served(items: KubeObject[], options: TableOptions): Promise<{ body: string; length: number }> {
  server = createServer((incoming, response) => void writeTable(incoming, response, 200, definition, items, options));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ body: Buffer.concat(chunks).toString('utf8'), length: Number(response.headers['content-length']) }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe('writeTable', () => {
  it.each(['None', 'Metadata', 'Object'] as const)(
    'sends the bytes of JSON.stringify(buildTable()) with includeObject=%s',
    async (includeObject) => {
      const options: TableOptions = { version: 'v1', includeObject, listMetadata: { resourceVersion: '7' }, now };
      const { body, length } = await served(objects, options);
      expect(body).toBe(JSON.stringify(buildTable(definition, objects, options)));
      expect(length).toBe(Buffer.byteLength(body));
    },
  );

  it('computes the cells of an object version once; a changed object gets new cells, ages follow the clock', async () => {
    const object = { ...(objects[5] as KubeObject) };
    sizeOf.mockClear();
    const first = buildTable(definition, [object], { version: 'v1', includeObject: 'None', now });
    const later = new Date(now.getTime() + 3_600_000);
    const second = buildTable(definition, [object], { version: 'v1', includeObject: 'None', now: later });
    expect(sizeOf).toHaveBeenCalledTimes(1);
    expect(first['rows']).toEqual([{ cells: ['cm-5', 1, '"é✓5', '55m', null] }]);
    expect(second['rows']).toEqual([{ cells: ['cm-5', 1, '"é✓5', '115m', null] }]);
    const changed = { ...object, data: { a: '1', b: '2', c: '3' } };
    const { body } = await served([changed], { version: 'v1', includeObject: 'None', now });
    expect(sizeOf).toHaveBeenCalledTimes(2);
    expect(JSON.parse(body).rows).toEqual([{ cells: ['cm-5', 3, '"é✓5', '55m', null] }]);
  });
});
