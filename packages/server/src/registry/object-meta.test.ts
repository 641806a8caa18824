import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import { copyObject, formatTime, specChanged } from './object-meta.js';

describe('copyObject', () => {
  it('deep-copies a JSON object: equal, sharing nothing', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', labels: { x: 'y' }, finalizers: ['f'] },
      data: { list: [{ nested: [1, 'two', null, true] }] },
    } as unknown as KubeObject;
    const copy = copyObject(object);
    expect(copy).toEqual(object);
    expect(copy.metadata).not.toBe(object.metadata);
    expect(copy.metadata.labels).not.toBe(object.metadata.labels);
    (copy.metadata.finalizers as string[]).push('g');
    expect(object.metadata.finalizers).toEqual(['f']);
  });

  it('keeps a parsed "__proto__" key as data, not as the prototype', () => {
    const object = JSON.parse('{"metadata":{"name":"p"},"data":{"__proto__":{"polluted":true}}}') as KubeObject;
    const data = copyObject(object)['data'] as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__']);
    expect((data as { polluted?: boolean }).polluted).toBeUndefined();
  });
});

describe('formatTime', () => {
  it('formats whole seconds in RFC 3339, also for the second after a cached one', () => {
    expect(formatTime(new Date('2026-11-22T10:00:00.900Z'))).toBe('2026-11-22T10:00:00Z');
    expect(formatTime(new Date('2026-11-22T10:00:00.100Z'))).toBe('2026-11-22T10:00:00Z');
    expect(formatTime(new Date('2026-11-22T10:00:01.000Z'))).toBe('2026-11-22T10:00:01Z');
  });
});

describe('specChanged', () => {
  const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { x: '1', y: '2' }, list: [{ a: 1 }, { b: [1, 2] }] };

  it('compares everything but metadata, status, apiVersion and kind as JSON: key order ignored, undefined members absent', () => {
    expect(specChanged(base, { ...base, metadata: { name: 'a', labels: { l: 'v' } }, status: { phase: 'x' }, apiVersion: 'v2' })).toBe(false);
    expect(specChanged(base, { kind: 'ConfigMap', list: [{ a: 1 }, { b: [1, 2] }], data: { y: '2', x: '1' }, metadata: { name: 'a' }, apiVersion: 'v1' })).toBe(false);
    expect(specChanged(base, { ...base, extra: undefined, data: { x: '1', y: '2', z: undefined } })).toBe(false);
  });

  it('sees any change of a spec value, nested or in arrays', () => {
    expect(specChanged(base, { ...base, data: { x: '1' } })).toBe(true);
    expect(specChanged(base, { ...base, data: { x: '1', y: '2', z: '3' } })).toBe(true);
    expect(specChanged(base, { ...base, list: [{ a: 1 }, { b: [2, 1] }] })).toBe(true);
    expect(specChanged(base, { ...base, list: [{ a: 1 }] })).toBe(true);
    expect(specChanged(base, { ...base, data: { x: 1, y: '2' } })).toBe(true);
    expect(specChanged({ ...base, data: null }, { ...base, data: {} })).toBe(true);
    expect(specChanged({ ...base, list: [] }, { ...base, list: {} })).toBe(true);
  });
});
