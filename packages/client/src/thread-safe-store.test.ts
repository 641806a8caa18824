import { describe, expect, it } from 'vitest';
import { Indexer, objectKey } from './thread-safe-store.js';

const cm = (namespace: string, name: string, rv = '1') => ({ metadata: { namespace, name, resourceVersion: rv } });

describe('Indexer', () => {
  it('keys objects by namespace/name and indexes by namespace', () => {
    const indexer = new Indexer();
    indexer.upsert(cm('a', 'x'));
    indexer.upsert(cm('a', 'y'));
    indexer.upsert(cm('b', 'x'));
    expect(objectKey(cm('a', 'x'))).toBe('a/x');
    expect(objectKey({ metadata: { name: 'node1' } })).toBe('node1');
    expect(indexer.byIndex('namespace', 'a').map((o) => o.metadata.name).sort()).toEqual(['x', 'y']);
    indexer.remove('a/x');
    expect(indexer.byIndex('namespace', 'a').map((o) => o.metadata.name)).toEqual(['y']);
    expect(indexer.size).toBe(2);
  });

  it('moves an object between index values on update', () => {
    const indexer = new Indexer({ label: (o) => [o.metadata.labels?.tier ?? ''] });
    indexer.upsert({ metadata: { name: 'p', labels: { tier: 'web' } } });
    indexer.upsert({ metadata: { name: 'p', labels: { tier: 'db' } } });
    expect(indexer.byIndex('label', 'web')).toEqual([]);
    expect(indexer.byIndex('label', 'db')).toHaveLength(1);
  });

  it('replace drops what is gone', () => {
    const indexer = new Indexer();
    indexer.upsert(cm('a', 'x'));
    indexer.replace([cm('a', 'z')]);
    expect(indexer.keys()).toEqual(['a/z']);
    expect(indexer.byIndex('namespace', 'a')).toHaveLength(1);
  });
});
