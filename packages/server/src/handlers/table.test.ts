import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ResourceDefinition } from '../resource-definition.js';
import { evaluateJsonPath } from './json-path.js';
import { buildTable, negotiateResponseForm } from './table.js';

const object = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { replicas: 3, 'x.y': 'dotted', items: [{ n: 1 }, { n: 2 }] },
  status: {
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'Synced', status: 'False' },
    ],
  },
};

function accept(value: string): IncomingMessage {
  return { headers: { accept: value } } as IncomingMessage;
}

describe('evaluateJsonPath', () => {
  it('evaluates fields, indices, wildcards and filters', () => {
    expect(evaluateJsonPath('.spec.replicas', object)).toEqual([3]);
    expect(evaluateJsonPath('{.spec.items[1].n}', object)).toEqual([2]);
    expect(evaluateJsonPath('.spec.items[*].n', object)).toEqual([1, 2]);
    expect(evaluateJsonPath(".spec['x.y']", object)).toEqual(['dotted']);
    expect(evaluateJsonPath('.status.conditions[?(@.type=="Ready")].status', object)).toEqual(['True']);
    expect(evaluateJsonPath('.status.conditions[?(@.type!="Ready")].type', object)).toEqual(['Synced']);
    expect(evaluateJsonPath('.spec.missing', object)).toEqual([]);
  });
});

describe('Table', () => {
  it('negotiates Table and PartialObjectMetadata from Accept', () => {
    expect(
      negotiateResponseForm(accept('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')),
    ).toEqual({
      as: 'Table',
      version: 'v1',
    });
    expect(negotiateResponseForm(accept('application/json;as=Table;v=v1beta1;g=meta.k8s.io'))).toEqual({
      as: 'Table',
      version: 'v1beta1',
    });
    expect(
      negotiateResponseForm(accept('application/json;as=Table;v=v9;g=meta.k8s.io, application/json')),
    ).toEqual({ as: 'object' });
    expect(() => negotiateResponseForm(accept('application/json;as=Table;v=v9;g=meta.k8s.io'))).toThrow(
      'only the following media types',
    );
    expect(
      negotiateResponseForm(accept('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io')),
    ).toEqual({
      as: 'PartialObjectMetadata',
      version: 'v1',
      list: true,
    });
  });

  it('builds rows from printer columns, defaulting to Name and Age', () => {
    const base = {
      group: 'example.com',
      resource: 'widgets',
      kind: 'Widget',
      namespaced: true,
      versions: ['v1'],
    } satisfies ResourceDefinition;
    const now = new Date('2026-01-01T00:05:00Z');
    const plain = buildTable(base, [object], { version: 'v1', includeObject: 'Metadata', now });
    expect((plain['columnDefinitions'] as Array<{ name: string }>).map((column) => column.name)).toEqual([
      'Name',
      'Age',
    ]);
    expect(plain['rows']).toEqual([
      {
        cells: ['a', '5m'],
        object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata },
      },
    ]);
    const custom = buildTable(
      {
        ...base,
        printerColumns: [
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Missing', type: 'string', jsonPath: '.spec.nothing' },
        ],
      },
      [object],
      { version: 'v1', includeObject: 'Object', now },
    );
    expect(custom['rows']).toEqual([{ cells: ['a', 3, 'True', null], object }]);
  });
});

describe('integer columns over maps and lists', () => {
  it('show the size, as ConfigMap DATA does', () => {
    const definition: ResourceDefinition = {
      group: '',
      resource: 'configmaps',
      kind: 'ConfigMap',
      namespaced: true,
      versions: ['v1'],
      printerColumns: [
        { name: 'Data', type: 'integer', jsonPath: '.data' },
        { name: 'Secrets', type: 'integer', jsonPath: '.secrets' },
      ],
    };
    const objects = [{ metadata: { name: 'a' }, data: { x: '1', y: '2' }, secrets: [{ name: 's' }] }];
    const table = buildTable(definition, objects, { version: 'v1', includeObject: 'None' }) as unknown as { rows: Array<{ cells: unknown[] }> };
    expect(table.rows[0]?.cells).toEqual(['a', 2, 1]);
  });
});
