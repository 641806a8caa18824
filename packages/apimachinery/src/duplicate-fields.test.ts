import { describe, expect, it } from 'vitest';
import { findDuplicateFields } from './duplicate-fields.js';

describe('findDuplicateFields', () => {
  it('finds repeated keys at any depth with their paths', () => {
    const text = `{
      "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"x": "1", "x": "2"}},
      "spec": {"replicas": 1, "containers": [{"name": "c", "image": "i", "name": "d"}, {"n\\"q": [1, {"a": true, "a": null}]}],
               "replicas": 2}
    }`;
    expect(findDuplicateFields(text)).toEqual([
      'metadata.labels.x',
      'spec.containers[0].name',
      'spec.containers[1].n"q[1].a',
      'spec.replicas',
    ]);
  });

  it('returns nothing for clean documents and scalars', () => {
    expect(findDuplicateFields('{"a": {"b": [], "c": {}}, "d": "x,}]"}')).toEqual([]);
    expect(findDuplicateFields('[{"a":1},{"a":2}]')).toEqual([]);
    expect(findDuplicateFields('42')).toEqual([]);
  });
});
