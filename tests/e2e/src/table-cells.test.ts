import { describe, expect, it } from 'vitest';
import { kubectl } from './harness.js';
import { serverForFile } from './server-for-file.js';

/**
 * Tables (what `kubectl get` asks for) are spliced from cells cached per object version: the compact
 * answer equals the pretty one (still one encode of the built Table), ages stay live, and a changed
 * object shows its new cells.
 */
const shared = serverForFile();
const namespace = 'default';
const path = `/api/v1/namespaces/${namespace}/configmaps`;
const tableAccept = 'application/json;as=Table;g=meta.k8s.io;v=v1';

interface Table {
  kind: string;
  rows: Array<{ cells: unknown[]; object?: { kind: string; metadata: { name: string } } }>;
}

async function table(target: string): Promise<{ table: Table; length: number; bytes: number }> {
  const response = await shared.admin.raw({ method: 'GET', path: target, accept: tableAccept });
  expect(response.statusCode).toBe(200);
  return {
    table: JSON.parse(response.body.toString('utf8')) as Table,
    length: Number(response.headers['content-length']),
    bytes: response.body.length,
  };
}

async function createConfigMaps(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await shared.admin.request({
      method: 'POST',
      path,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `t-${String(i).padStart(3, '0')}` }, data: { a: 'é✓"'.repeat(200), b: String(i) } },
    });
  }
}

/**
 * A Table without its Age cells (the last column), which may tick between two reads, and without the
 * list's resourceVersion, which the server's own background writes (leases, start-up migrations) move.
 */
const withoutAges = (value: Table) => ({ ...value, metadata: undefined, rows: value.rows.map((row) => ({ ...row, cells: row.cells.slice(0, -1) })) });

describe('Table from cached cells', () => {
  it('LIST and GET as Table (cache and storage, every includeObject) equal the pretty encode of the built Table', async () => {
    await createConfigMaps(150);
    for (const query of ['resourceVersion=0', '', 'resourceVersion=0&includeObject=Object', 'includeObject=None']) {
      const compact = await table(`${path}?${query}`);
      const pretty = await table(`${path}?${query}&pretty=true`);
      expect(compact.length).toBe(compact.bytes);
      expect(compact.table.rows).toHaveLength(150);
      expect(withoutAges(compact.table)).toEqual(withoutAges(pretty.table));
      for (const row of compact.table.rows) expect(row.cells[2]).toMatch(/^\d+s$/);
    }
    const one = await table(`${path}/t-007`);
    expect(one.table.rows.map((row) => row.cells.slice(0, 2))).toEqual([['t-007', 2]]);
    expect(one.table.rows[0]?.object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 't-007' } });
  });

  it('kubectl get prints the cells; after an update it prints the new ones', async () => {
    const before = await kubectl(shared.server, ['get', 'configmaps', '-n', namespace, 't-001', 't-002']);
    expect(before).toMatch(/^NAME\s+DATA\s+AGE\nt-001\s+2\s+\d+s\nt-002\s+2\s+\d+s\n$/);
    await table(`${path}?resourceVersion=0`);
    await shared.admin.request({
      method: 'PATCH',
      path: `${path}/t-001`,
      contentType: 'application/merge-patch+json',
      body: { data: { c: '3', d: '4' } },
    });
    const after = await kubectl(shared.server, ['get', 'configmaps', '-n', namespace, 't-001', 't-002']);
    expect(after).toMatch(/^NAME\s+DATA\s+AGE\nt-001\s+4\s+\d+s\nt-002\s+2\s+\d+s\n$/);
    const cached = await table(`${path}?resourceVersion=0&fieldSelector=metadata.name%3Dt-001`);
    expect(cached.table.rows.map((row) => row.cells[1])).toEqual([4]);
  });
});

describe('columns as upstream prints them', () => {
  it('roles and CRDs show their creation time, bindings Kind/name and their subjects with -o wide', async () => {
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    await shared.admin.request({ method: 'POST', path: `${rbac}/namespaces/${namespace}/roles`, body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'printed' }, rules: [] } });
    await shared.admin.request({
      method: 'POST',
      path: `${rbac}/namespaces/${namespace}/rolebindings`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'printed' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'printed' },
        subjects: [
          { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'bob' },
          { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'g1' },
          { kind: 'ServiceAccount', name: 's1', namespace },
        ],
      },
    });
    const role = await kubectl(shared.server, ['get', 'role', 'printed', '-n', namespace]);
    expect(role).toMatch(/^NAME\s+CREATED AT\nprinted\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s*$/);
    const binding = await kubectl(shared.server, ['get', 'rolebinding', 'printed', '-n', namespace, '-o', 'wide']);
    expect(binding.split('\n')[0]).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS\s*$/);
    expect(binding.split('\n')[1]).toMatch(/^printed\s+Role\/printed\s+\S+\s+bob\s+g1\s+default\/s1\s*$/);
    await shared.admin.request({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'printeds.e2e.example.com' },
        spec: {
          group: 'e2e.example.com',
          scope: 'Namespaced',
          names: { plural: 'printeds', kind: 'Printed' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } } } } } },
              additionalPrinterColumns: [{ name: 'Port', type: 'string', jsonPath: '.spec.ports[*].name' }],
            },
          ],
        },
      },
    });
    const crd = await kubectl(shared.server, ['get', 'crd', 'printeds.e2e.example.com']);
    expect(crd).toMatch(/^NAME\s+CREATED AT\nprinteds\.e2e\.example\.com\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s*$/);
    // A column path with several matches shows the first, as upstream's convertor.
    await kubectl(shared.server, ['wait', '--for=condition=Established', 'crd/printeds.e2e.example.com', '--timeout=30s']);
    const printeds = `/apis/e2e.example.com/v1/namespaces/${namespace}/printeds`;
    for (let attempt = 0; (await shared.admin.raw({ method: 'GET', path: printeds })).statusCode !== 200 && attempt < 100; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
    await shared.admin.request({ method: 'POST', path: printeds, body: { apiVersion: 'e2e.example.com/v1', kind: 'Printed', metadata: { name: 'two-ports' }, spec: { ports: [{ name: 'http' }, { name: 'https' }] } } });
    expect(await kubectl(shared.server, ['get', 'printeds', 'two-ports', '-n', namespace])).toMatch(/^NAME\s+PORT\s+AGE\ntwo-ports\s+http\s+\S+\s*$/);
  });
});
