import { describe, expect, it } from 'vitest';
import { routeList } from './list-routing.js';

describe('routeList', () => {
  it('serves RV=0 (ignoring limit) and NotOlderThan from the cache, consistent reads when possible', () => {
    expect(routeList({ resourceVersion: '0', predicate: { limit: 5 } }, true)).toEqual({ target: 'cache', wait: 'none' });
    expect(routeList({ resourceVersion: '7' }, true)).toEqual({ target: 'cache', wait: 'revision', revision: 7, limit: 0 });
    expect(routeList({ resourceVersion: '7', resourceVersionMatch: 'NotOlderThan', predicate: { limit: 2 } }, true)).toEqual({
      target: 'cache',
      wait: 'revision',
      revision: 7,
      limit: 2,
    });
    expect(routeList({}, true)).toEqual({ target: 'cache', wait: 'consistent', limit: 0 });
    // As kubectl get asks: a consistent read of the first 500.
    expect(routeList({ predicate: { limit: 500 } }, true)).toEqual({ target: 'cache', wait: 'consistent', limit: 500 });
  });

  it('delegates Exact, continue, legacy exact pages, consistent reads the cache cannot serve, and malformed requests', () => {
    const storage = { target: 'storage' };
    expect(routeList({ resourceVersion: '7', resourceVersionMatch: 'Exact' }, true)).toEqual(storage);
    expect(routeList({ predicate: { continue: 'token' } }, true)).toEqual(storage);
    expect(routeList({ resourceVersion: '7', predicate: { limit: 2 } }, true)).toEqual(storage);
    expect(routeList({}, false)).toEqual(storage);
    expect(routeList({ predicate: { limit: 2 } }, false)).toEqual(storage);
    expect(routeList({ resourceVersion: 'abc' }, true)).toEqual(storage);
    expect(routeList({ resourceVersionMatch: 'NotOlderThan' }, true)).toEqual(storage);
  });
});
