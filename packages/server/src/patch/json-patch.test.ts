import { describe, expect, it } from 'vitest';
import { StatusError } from '@kapi/apimachinery';
import { applyJsonPatch, parseJsonPointer } from './json-patch.js';

function failure(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    if (StatusError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('applyJsonPatch', () => {
  const document = { spec: { list: ['a', 'b'], 'x/y': 1, 'm~n': 2 }, keep: true };

  it('applies add, remove, replace, move, copy and test', () => {
    const result = applyJsonPatch(document, [
      { op: 'test', path: '/keep', value: true },
      { op: 'add', path: '/spec/list/-', value: 'c' },
      { op: 'add', path: '/spec/list/0', value: 'z' },
      { op: 'remove', path: '/spec/x~1y' },
      { op: 'replace', path: '/spec/m~0n', value: 3 },
      { op: 'copy', from: '/spec/list', path: '/copied' },
      { op: 'move', from: '/keep', path: '/moved' },
    ]);
    expect(result).toEqual({
      spec: { list: ['z', 'a', 'b', 'c'], 'm~n': 3 },
      copied: ['z', 'a', 'b', 'c'],
      moved: true,
    });
    expect(document.spec.list).toEqual(['a', 'b']);
  });

  it('follows evanphx quirks: negative index, replace of an absent key, test null on absent', () => {
    expect(applyJsonPatch({ a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }])).toEqual({ a: [1, 2] });
    expect(applyJsonPatch({}, [{ op: 'replace', path: '/b', value: 1 }])).toEqual({ b: 1 });
    expect(applyJsonPatch({}, [{ op: 'test', path: '/b', value: null }])).toEqual({});
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }])).toEqual({ b: 2 });
  });

  it('rejects failing operations with the generic 422', () => {
    for (const operation of [
      { op: 'test', path: '/a', value: 2 },
      { op: 'remove', path: '/missing' },
      { op: 'add', path: '/no/parent', value: 1 },
      { op: 'add', path: '/list/5', value: 1 },
      { op: 'frobnicate', path: '/a' },
    ]) {
      const error = failure(() => applyJsonPatch({ a: 1, list: [] }, [operation]));
      expect(error.code).toBe(422);
      expect(error.status.message).toBe('the server rejected our request due to an error in our request');
      expect(error.status.details).toEqual({});
    }
  });

  it('rejects a body that is not an array with 400 and too many operations with 413', () => {
    const error = failure(() => applyJsonPatch({}, { op: 'add' }));
    expect(error.code).toBe(400);
    expect(error.message).toBe('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    const many = Array.from({ length: 10001 }, () => ({ op: 'test', path: '' }));
    expect(failure(() => applyJsonPatch({}, many)).status.message).toBe(
      'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    );
  });

  it('parses pointers with escapes', () => {
    expect(parseJsonPointer('/a~1b/c~0d/')).toEqual(['a/b', 'c~d', '']);
  });
});
