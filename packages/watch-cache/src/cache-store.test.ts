import type { KubeObject } from '@kapi/apimachinery';
import { describe, expect, it } from 'vitest';
import { CacheStore } from './cache-store.js';

const pod = (namespace: string, name: string, node = ''): KubeObject => ({ metadata: { namespace, name }, spec: { nodeName: node } });
const names = (objects: KubeObject[]) => objects.map((object) => object.metadata.name);

describe('CacheStore', () => {
  it('lists a directory in key order, and reads single keys', () => {
    const store = new CacheStore();
    store.set('/pods/b/x', pod('b', 'x'));
    store.set('/pods/a/z', pod('a', 'z'));
    store.set('/pods/a/y', pod('a', 'y'));
    store.set('/podsx/a/w', pod('a', 'w'));
    expect(names(store.list({ key: '/pods', recursive: true }))).toEqual(['y', 'z', 'x']);
    expect(names(store.list({ key: '/pods/a/', recursive: true }))).toEqual(['y', 'z']);
    expect(names(store.list({ key: '/pods/a/z', recursive: false }))).toEqual(['z']);
    expect(store.list({ key: '/pods/a', recursive: false })).toEqual([]);
    store.delete('/pods/a/y');
    expect(names(store.list({ key: '/pods', recursive: true }))).toEqual(['z', 'x']);
    expect(store.size).toBe(3);
  });

  it('reads the first objects of a directory and counts the rest, beside directories sharing its prefix', () => {
    const store = new CacheStore();
    const keys = ['/cm/ns-5/a', '/cm/ns-5/b', '/cm/ns-5/c', '/cm/ns-5./d', '/cm/ns-50/e', '/cm/ns-5x/f', '/cm/ns-4/g', '/cm/ns-5', '/cm/ns-6/h'];
    for (const key of keys) store.set(key, pod('', key));
    const expected = (directory: string) => keys.filter((key) => key.startsWith(directory)).sort();
    for (const key of ['/cm/ns-5', '/cm/ns-5/', '/cm/ns-50', '/cm/ns-4', '/cm/ns-7', '/cm']) {
      const directory = key.endsWith('/') ? key : `${key}/`;
      for (const limit of [0, 1, 2, 3, 10, Infinity]) {
        const page = store.first({ key, recursive: true }, limit);
        expect(names(page.items)).toEqual(expected(directory).slice(0, limit));
        expect(page.total).toBe(expected(directory).length);
      }
    }
    expect(store.first({ key: '/cm/ns-5', recursive: false }, 5)).toEqual({ items: [pod('', '/cm/ns-5')], total: 1 });
    expect(store.first({ key: '/cm/ns-5', recursive: false }, 0)).toEqual({ items: [], total: 1 });
    // Keys added and removed since the last read are counted once merged.
    store.delete('/cm/ns-5/b');
    store.set('/cm/ns-5/0', pod('', '/cm/ns-5/0'));
    expect(store.first({ key: '/cm/ns-5', recursive: true }, 2)).toEqual({ items: [pod('', '/cm/ns-5/0'), pod('', '/cm/ns-5/a')], total: 3 });
  });

  it('keeps key order across interleaved creates, deletes and re-creates between lists', () => {
    const store = new CacheStore();
    store.replace([['/p/b', pod('', 'b')], ['/p/d', pod('', 'd')]]);
    store.set('/p/c', pod('', 'c'));
    store.delete('/p/b');
    store.set('/p/a', pod('', 'a'));
    store.delete('/p/a');
    store.set('/p/a', pod('', 'a2'));
    store.set('/p/b', pod('', 'b2'));
    store.delete('/p/d');
    expect(names(store.list({ key: '/p', recursive: true }))).toEqual(['a2', 'b2', 'c']);
    store.set('/p/e', pod('', 'e'));
    store.delete('/p/c');
    expect(names(store.list({ key: '/p/', recursive: true }))).toEqual(['a2', 'b2', 'e']);
  });

  it('keeps key order whether few or many keys changed since the last list', () => {
    const store = new CacheStore();
    const expected = new Set<string>();
    const key = (index: number) => `/p/${String((index * 7919) % 1000).padStart(4, '0')}`;
    for (let index = 0; index < 200; index++) expected.add(key(index));
    store.replace([...expected].map((name) => [name, pod('', name)] as const));
    for (const changes of [1, 5, 31, 32, 33, 100, 300]) {
      for (let step = 0; step < changes; step++) {
        const name = key(changes * 13 + step * 3);
        if (expected.has(name)) {
          store.delete(name);
          expected.delete(name);
        } else {
          store.set(name, pod('', name));
          expected.add(name);
        }
      }
      expect(names(store.list({ key: '/p', recursive: true }))).toEqual([...expected].sort());
    }
  });

  it('replaces the state from objects keyed by a key function, in key order whatever order they come in', () => {
    const store = new CacheStore({ 'spec.nodeName': (object) => [String((object.spec as { nodeName: string }).nodeName)] });
    const keyOf = (object: KubeObject) => `/pods/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
    store.set('/pods/z/old', pod('z', 'old', 'n1'));
    store.replaceObjects([pod('a', '1', 'n1'), pod('a', '2', 'n2'), pod('b', '3', 'n1')], keyOf);
    expect(names(store.list({ key: '/pods', recursive: true }))).toEqual(['1', '2', '3']);
    expect(names(store.list({ key: '/pods', recursive: true }, { field: 'spec.nodeName', value: 'n1' }))).toEqual(['1', '3']);
    expect(store.get('/pods/z/old')).toBeUndefined();
    // Out of key order (and a key twice: the later object wins), as a backend in another order would list.
    store.replaceObjects([pod('b', '3'), pod('a', '2'), pod('a', '1'), pod('a', '10'), pod('a', '2', 'n9')], keyOf);
    expect(names(store.list({ key: '/pods', recursive: true }))).toEqual(['1', '10', '2', '3']);
    expect(store.size).toBe(4);
    expect((store.get('/pods/a/2')?.spec as { nodeName: string }).nodeName).toBe('n9');
    store.set('/pods/a/0', pod('a', '0'));
    expect(names(store.list({ key: '/pods/a', recursive: true }))).toEqual(['0', '1', '10', '2']);
  });

  it('answers from an index, kept current across updates and deletes', () => {
    const store = new CacheStore({ 'spec.nodeName': (object) => [String((object.spec as { nodeName: string }).nodeName)] });
    store.replace([
      ['/pods/a/1', pod('a', '1', 'n1')],
      ['/pods/a/2', pod('a', '2', 'n2')],
      ['/pods/b/3', pod('b', '3', 'n1')],
    ]);
    const onNode = (node: string, key = '/pods') => names(store.list({ key, recursive: true }, { field: 'spec.nodeName', value: node }));
    expect(onNode('n1')).toEqual(['1', '3']);
    expect(onNode('n1', '/pods/b')).toEqual(['3']);
    store.set('/pods/a/1', pod('a', '1', 'n2'));
    expect(onNode('n1')).toEqual(['3']);
    expect(onNode('n2')).toEqual(['1', '2']);
    store.delete('/pods/a/2');
    expect(onNode('n2')).toEqual(['1']);
  });
});
