import { describe, expect, it } from 'vitest';
import { pageItem, scanList } from './page-reader.js';

const slices = (text: string) => {
  const bytes = Buffer.from(text);
  const layout = scanList(bytes);
  return {
    metadata: layout.metadata && bytes.toString('utf8', ...layout.metadata),
    items: Array.from({ length: layout.items.length / 2 }, (_, index) => bytes.toString('utf8', layout.items[2 * index], layout.items[2 * index + 1])),
  };
};

describe('scanList', () => {
  it('finds the metadata and each item of a list, whatever the key order', () => {
    const items = [{ metadata: { name: 'a' }, data: { x: '1' } }, { metadata: { name: 'b' } }];
    const list = { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '7', continue: 'tok' }, items };
    expect(slices(JSON.stringify(list))).toEqual({ metadata: JSON.stringify(list.metadata), items: items.map((item) => JSON.stringify(item)) });
    const itemsFirst = { items, metadata: { resourceVersion: '8' } };
    expect(slices(JSON.stringify(itemsFirst, null, 2))).toEqual({
      metadata: JSON.stringify(itemsFirst.metadata, null, 2).replace(/\n/g, '\n  '),
      items: items.map((item) => JSON.stringify(item, null, 2).replace(/\n/g, '\n    ')),
    });
  });

  it('is not misled by brackets, quotes and escapes inside strings, nor by nested items or metadata keys', () => {
    const items = [
      { metadata: { name: 'q' }, data: { 'we}ird"key': 'value with } ] [ { and \\" and \\\\', items: '[{}]', nested: { items: [{ metadata: {} }] } } },
      { metadata: { name: 'unicode é 😀' }, data: { 'x\\': '\\' } },
    ];
    const list = { apiVersion: 'v1', kind: 'List', metadata: {}, items };
    const found = slices(JSON.stringify(list));
    expect(found.metadata).toBe('{}');
    expect(found.items.map((item) => JSON.parse(item) as unknown)).toEqual(items);
  });

  it('finds no items in an empty list', () => {
    expect(slices('{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[]}').items).toEqual([]);
  });
});

describe('pageItem', () => {
  const typeMeta = { apiVersion: 'v1', kind: 'ConfigMap' };
  it('reads the identity of an item and keeps its bytes as the body', () => {
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '12', uid: 'u' }, data: { k: 'v' } });
    const bytes = Buffer.from(`[${text}]`);
    const item = pageItem(bytes, 1, bytes.length - 1, typeMeta);
    expect({ ...item, body: item.body.toString() }).toEqual({ name: 'a', namespace: 'ns', uid: 'u', resourceVersion: '12', body: text });
  });

  it('adds the apiVersion and kind an item lacks, keeping everything else as listed', () => {
    const untyped = { metadata: { name: 'b', resourceVersion: '3', uid: 'u' }, data: { k: 'v' } };
    const bytes = Buffer.from(JSON.stringify(untyped));
    const item = pageItem(bytes, 0, bytes.length, typeMeta);
    expect(item.namespace).toBeUndefined();
    expect(JSON.parse(item.body.toString()) as unknown).toEqual({ ...typeMeta, ...untyped });
    const kindOnly = Buffer.from(JSON.stringify({ kind: 'ConfigMap', metadata: { name: 'c' } }));
    expect(JSON.parse(pageItem(kindOnly, 0, kindOnly.length, typeMeta).body.toString()) as unknown).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  });
});
