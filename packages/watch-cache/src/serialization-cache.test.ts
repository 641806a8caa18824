import { describe, expect, it } from 'vitest';
import { cachedSerialization } from './serialization-cache.js';

describe('cachedSerialization', () => {
  it('encodes each object once per encoding', () => {
    let encodings = 0;
    const json = (object: object) => {
      encodings++;
      return JSON.stringify(object);
    };
    const object = { metadata: { name: 'a' } };
    expect(cachedSerialization(object, 'json', json)).toBe('{"metadata":{"name":"a"}}');
    expect(cachedSerialization(object, 'json', json)).toBe('{"metadata":{"name":"a"}}');
    expect(encodings).toBe(1);
    expect(cachedSerialization(object, 'yaml', () => 'name: a')).toBe('name: a');
    expect(cachedSerialization({ ...object }, 'json', json)).toBe('{"metadata":{"name":"a"}}');
    expect(encodings).toBe(2);
  });
});
