import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch, type SchemaNode } from './strategic-merge-patch.js';

const schema: SchemaNode = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-patch-strategy': 'merge',
          'x-kubernetes-patch-merge-key': 'name',
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        tags: { type: 'array', 'x-kubernetes-patch-strategy': 'merge', items: { type: 'string' } },
        plain: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

describe('applyStrategicMergePatch', () => {
  const live = {
    metadata: { finalizers: ['a'], ownerReferences: [{ uid: '1', name: 'x' }] },
    spec: {
      ports: [
        { name: 'http', port: 80 },
        { name: 'https', port: 443 },
      ],
      tags: ['x', 'y'],
      plain: ['p'],
      map: { keep: 1, drop: 2 },
    },
    status: { conditions: [{ type: 'Ready', status: 'False' }] },
  };

  it('merges lists by merge key, sets and built-in metadata keys', () => {
    const result = applyStrategicMergePatch(
      live,
      {
        metadata: { finalizers: ['b', 'a'], ownerReferences: [{ uid: '2', name: 'y' }] },
        spec: {
          ports: [
            { name: 'http', port: 8080 },
            { name: 'grpc', port: 9 },
          ],
          tags: ['z'],
          plain: ['q'],
          map: { drop: null },
        },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
      schema,
    );
    expect(result).toEqual({
      metadata: {
        finalizers: ['a', 'b'],
        ownerReferences: [
          { uid: '1', name: 'x' },
          { uid: '2', name: 'y' },
        ],
      },
      spec: {
        ports: [
          { name: 'http', port: 8080 },
          { name: 'https', port: 443 },
          { name: 'grpc', port: 9 },
        ],
        tags: ['x', 'y', 'z'],
        plain: ['q'],
        map: { keep: 1 },
      },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    });
  });

  it('supports $patch delete/replace, $deleteFromPrimitiveList and $setElementOrder', () => {
    const result = applyStrategicMergePatch(
      live,
      {
        spec: {
          ports: [{ name: 'http', $patch: 'delete' }],
          '$deleteFromPrimitiveList/tags': ['x'],
          map: { $patch: 'replace', only: true },
        },
        metadata: { '$setElementOrder/ownerReferences': [{ uid: '1' }] },
      },
      schema,
    ) as { spec: Record<string, unknown> };
    expect(result.spec['ports']).toEqual([{ name: 'https', port: 443 }]);
    expect(result.spec['tags']).toEqual(['y']);
    expect(result.spec['map']).toEqual({ only: true });

    const replaced = applyStrategicMergePatch(
      live,
      { spec: { ports: [{ $patch: 'replace' }, { name: 'only', port: 1 }], map: { $patch: 'delete' } } },
      schema,
    ) as {
      spec: Record<string, unknown>;
    };
    expect(replaced.spec['ports']).toEqual([{ name: 'only', port: 1 }]);
    expect(replaced.spec['map']).toEqual({});

    const ordered = applyStrategicMergePatch(
      live,
      { spec: { '$setElementOrder/ports': [{ name: 'https' }, { name: 'http' }] } },
      schema,
    ) as {
      spec: { ports: Array<{ name: string }> };
    };
    expect(ordered.spec.ports.map((port) => port.name)).toEqual(['https', 'http']);
  });

  it('reports a missing merge key and bad directives as upstream', () => {
    expect(() => applyStrategicMergePatch(live, { spec: { ports: [{ port: 1 }] } }, schema)).toThrow(
      'does not contain declared merge key: name',
    );
    expect(() => applyStrategicMergePatch(live, { spec: { ports: [{ $patch: 'merge' }] } }, schema)).toThrow(
      'merging lists cannot yet be specified in the patch',
    );
    expect(() => applyStrategicMergePatch(live, [1], schema)).toThrow('invalid JSON document');
  });

  it('keeps only $retainKeys and rejects patch keys outside them', () => {
    const live = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } };
    expect(
      applyStrategicMergePatch(
        live,
        { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
        schema,
      ),
    ).toEqual({ spec: { strategy: { type: 'Recreate' } } });
    expect(() =>
      applyStrategicMergePatch(live, { spec: { strategy: { $retainKeys: ['type'], other: 1 } } }, schema),
    ).toThrow('invalid patch format of retainKeys');
  });
});
