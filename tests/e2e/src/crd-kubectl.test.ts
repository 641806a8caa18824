import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startServer, type TestServer } from './harness.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/crds');
const crdFiles = (folder: string) =>
  readdirSync(join(fixtures, folder))
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => join(fixtures, folder, file));

/** A small CRD of group e2e.example.com. */
function crd(options: {
  plural: string;
  kind: string;
  singular?: string;
  versions?: Array<{ name: string; storage: boolean }>;
  name?: string;
}): string {
  const versions = options.versions ?? [{ name: 'v1', storage: true }];
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: options.name ?? `${options.plural}.e2e.example.com` },
    spec: {
      group: 'e2e.example.com',
      scope: 'Namespaced',
      names: { plural: options.plural, kind: options.kind, ...(options.singular ? { singular: options.singular } : {}) },
      versions: versions.map((version) => ({
        ...version,
        served: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
      })),
    },
  });
}

/**
 * `kubectl wait --for condition=...`, retried while a fresh CRD still has `status.conditions: null` (as
 * upstream's, until its controllers ran), which kubectl reports as an accessor error.
 */
async function waitFor(server: TestServer, condition: string, target: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await kubectl(server, ['wait', '--for', condition, ...target.split(' '), '--timeout=30s']);
    } catch (error) {
      if (attempt > 20 || !String(error).includes('accessor error')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('kubectl with CustomResourceDefinitions on kube-apiserver-lite', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('applies the Gateway API, cert-manager and prometheus-operator CRDs and establishes them', async () => {
    const files = [...crdFiles('gateway-api'), ...crdFiles('cert-manager'), ...crdFiles('prometheus-operator')];
    await kubectl(server, ['apply', '--server-side', ...files.flatMap((file) => ['-f', file])]);
    const waited = await waitFor(server, 'condition=Established', 'crd --all');
    expect(waited.trim().split('\n')).toHaveLength(files.length);
    const resources = await kubectl(server, ['api-resources', '--api-group=gateway.networking.k8s.io', '--no-headers']);
    expect(resources).toMatch(/httproutes\s+gateway\.networking\.k8s\.io\/v1\s+true\s+HTTPRoute/);
    expect(resources).toMatch(/gatewayclasses\s+gc\s+gateway\.networking\.k8s\.io\/v1\s+false\s+GatewayClass/);
  });

  it('applies the Gateway API examples and shows printer columns', async () => {
    const examples = join(fixtures, 'gateway-api/examples');
    await kubectl(server, ['apply', '-f', join(examples, '0-namespaces.yaml')]);
    await kubectl(server, ['apply', '-f', join(examples, 'basic-http.yaml')]);
    const routes = await kubectl(server, ['get', 'httproutes']);
    expect(routes.split('\n')[0]).toMatch(/^NAME\s+HOSTNAMES\s+AGE/);
    expect(routes).toMatch(/http-app-1\s+\["foo\.com"\]/);
    const classes = await kubectl(server, ['get', 'gc']);
    expect(classes).toMatch(/example\s+acme\.io\/gateway-controller/);
    const route = JSON.parse(await kubectl(server, ['get', 'httproute', 'http-app-1', '-o', 'json'])) as {
      apiVersion: string;
      metadata: { generation: number };
    };
    expect(route.apiVersion).toBe('gateway.networking.k8s.io/v1');
    expect(route.metadata.generation).toBe(1);
  });

  it('refuses an invalid HTTPRoute with the CEL rule message and stores nothing', async () => {
    const route = JSON.stringify({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'relative', namespace: 'default' },
      spec: { rules: [{ matches: [{ path: { type: 'PathPrefix', value: 'bar' } }], backendRefs: [{ name: 'svc', port: 80 }] }] },
    });
    const refusal = await kubectl(server, ['apply', '-f', '-'], route).then(
      () => '',
      (error: unknown) => String(error),
    );
    expect(refusal).toContain('The HTTPRoute "relative" is invalid: spec.rules[0].matches[0].path: Invalid value: ');
    expect(refusal).toContain("value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']");
    await expect(kubectl(server, ['get', 'httproute', 'relative'])).rejects.toThrow('NotFound');
  });

  it('merges server-side applies of two managers by the schema\'s list-map keys', async () => {
    const gateway = (listener: { name: string; port: number }) =>
      JSON.stringify({
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: 'shared', namespace: 'default' },
        spec: { gatewayClassName: 'example', listeners: [{ ...listener, protocol: 'HTTP' }] },
      });
    await kubectl(server, ['apply', '--server-side', '--field-manager=team-a', '-f', '-'], gateway({ name: 'a', port: 80 }));
    await kubectl(server, ['apply', '--server-side', '--field-manager=team-b', '-f', '-'], gateway({ name: 'b', port: 81 }));
    const names = await kubectl(server, ['get', 'gateway', 'shared', '-o', 'jsonpath={.spec.listeners[*].name}']);
    expect(names).toBe('a b');
    await kubectl(server, ['apply', '--server-side', '--field-manager=team-a', '-f', '-'], gateway({ name: 'a', port: 8080 }));
    const ports = await kubectl(server, ['get', 'gateway', 'shared', '-o', 'jsonpath={.spec.listeners[*].port}']);
    expect(ports).toBe('8080 81');
  });

  it('refuses an update breaking a transition rule (self == oldSelf) with its message', async () => {
    const patch = JSON.stringify({ spec: { controllerName: 'other.io/controller' } });
    const refusal = await kubectl(server, ['patch', 'gatewayclass', 'example', '--type=merge', '-p', patch]).then(
      () => '',
      (error: unknown) => String(error),
    );
    expect(refusal).toContain('spec.controllerName: Invalid value: ');
    expect(refusal).toContain('field is immutable');
    expect(await kubectl(server, ['get', 'gc', 'example', '-o', 'jsonpath={.spec.controllerName}'])).toBe('acme.io/gateway-controller');
    await kubectl(server, ['patch', 'gatewayclass', 'example', '--type=merge', '-p', JSON.stringify({ spec: { description: 'ok' } })]);
  });

  it('explains a custom resource from its schema', async () => {
    const out = await kubectl(server, ['explain', 'httproute.spec.hostnames']);
    expect(out).toContain('KIND:       HTTPRoute');
    expect(out).toContain('Hostnames defines a set of hostnames');
    // Upstream names a custom resource's definitions from the reversed group, for *.k8s.io groups too.
    const v3 = JSON.parse(await kubectl(server, ['get', '--raw', '/openapi/v3/apis/gateway.networking.k8s.io/v1'])) as { components: { schemas: Record<string, unknown> } };
    expect(Object.keys(v3.components.schemas)).toEqual(expect.arrayContaining(['io.k8s.networking.gateway.v1.HTTPRoute', 'io.k8s.networking.gateway.v1.HTTPRouteList']));
    expect(Object.keys(v3.components.schemas).filter((name) => name.startsWith('io.k8s.api.'))).toEqual([]);
    const v2 = JSON.parse(await kubectl(server, ['get', '--raw', '/openapi/v2'])) as { definitions: Record<string, unknown> };
    expect(v2.definitions).toHaveProperty(['io.k8s.networking.gateway.v1.GatewayClass']);
    expect(v2.definitions).toHaveProperty(['io.k8s.api.rbac.v1.Role']);
  });

  it('refuses an invalid CRD with upstream messages', async () => {
    const bad = crd({ plural: 'widgets', kind: 'Widget', name: 'wrong.e2e.example.com' });
    await expect(kubectl(server, ['apply', '-f', '-'], bad)).rejects.toThrow(
      'metadata.name: Invalid value: "wrong.e2e.example.com": must be spec.names.plural+"."+spec.group',
    );
    const twoStorage = crd({ plural: 'widgets', kind: 'Widget', versions: [{ name: 'v1', storage: true }, { name: 'v2', storage: true }] });
    await expect(kubectl(server, ['apply', '-f', '-'], twoStorage)).rejects.toThrow('must have exactly one version marked as storage version');
    const untyped = JSON.parse(crd({ plural: 'widgets', kind: 'Widget' })) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } } }> };
    };
    delete untyped.spec.versions[0]?.schema.openAPIV3Schema.properties.spec['type'];
    await expect(kubectl(server, ['apply', '-f', '-'], JSON.stringify(untyped))).rejects.toThrow(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    );
    // selectableFields must name a declared string, boolean or integer field outside metadata.
    for (const [jsonPath, message] of [
      ['.spec', 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'],
      ['.spec.missing', 'is an invalid path: does not refer to a valid field'],
      ['.metadata.name', 'must not point to fields in metadata'],
    ]) {
      const selecting = JSON.parse(crd({ plural: 'widgets', kind: 'Widget' })) as { spec: { versions: Array<Record<string, unknown>> } };
      (selecting.spec.versions[0] as Record<string, unknown>)['selectableFields'] = [{ jsonPath }];
      await expect(kubectl(server, ['apply', '-f', '-'], JSON.stringify(selecting))).rejects.toThrow(
        `spec.versions[0].selectableFields[0].jsonPath: Invalid value: "${jsonPath}": ${message}`,
      );
    }
    // CEL rules that do not type-check against the schema are refused at the CRD, not at every object.
    const rulePath = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]';
    for (const [rule, field, message] of [
      [{ rule: 'self.size.foo == 1' }, 'rule', "compilation failed: ERROR: <input>:1:10: type 'int' does not support field selection"],
      [{ rule: 'has(self.missing)' }, 'rule', "undefined field 'missing'"],
      [{ rule: 'self.size' }, 'rule', 'cel expression must evaluate to a bool'],
      [{ rule: 'self.size > 0', messageExpression: '1' }, 'messageExpression', 'messageExpression must evaluate to a string'],
    ] as const) {
      const ruled = JSON.parse(crd({ plural: 'widgets', kind: 'Widget' })) as {
        spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } } }> };
      };
      (ruled.spec.versions[0] as (typeof ruled.spec.versions)[0]).schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [rule];
      await expect(kubectl(server, ['apply', '-f', '-'], JSON.stringify(ruled))).rejects.toThrow(`${rulePath}.${field}: Invalid value:`);
      await expect(kubectl(server, ['apply', '-f', '-'], JSON.stringify(ruled))).rejects.toThrow(message);
    }
    await expect(kubectl(server, ['get', 'crd', 'widgets.e2e.example.com'])).rejects.toThrow('NotFound');
  });

  it('flags a kind already used in the group (its list kind too: the last conflict is reported) and does not establish it', async () => {
    await kubectl(server, ['apply', '-f', '-'], crd({ plural: 'gizmos', kind: 'Gizmo' }));
    await waitFor(server, 'condition=Established', 'crd/gizmos.e2e.example.com');
    await kubectl(server, ['apply', '-f', '-'], crd({ plural: 'othergizmos', singular: 'othergizmo', kind: 'Gizmo' }));
    await waitFor(server, 'condition=NamesAccepted=False', 'crd/othergizmos.e2e.example.com');
    const conflicting = JSON.parse(await kubectl(server, ['get', 'crd', 'othergizmos.e2e.example.com', '-o', 'json'])) as {
      status: { conditions: Array<{ type: string; status: string; reason: string; message: string }> };
    };
    const byType = new Map(conflicting.status.conditions.map((c) => [c.type, c]));
    // Kind and list kind (defaulted to GizmoList) both clash; upstream's checks each overwrite the condition.
    expect(byType.get('NamesAccepted')).toMatchObject({ status: 'False', reason: 'ListKindConflict', message: '"GizmoList" is already in use' });
    expect(byType.get('Established')).toMatchObject({ status: 'False', reason: 'NotAccepted' });
    await expect(kubectl(server, ['get', 'othergizmos'])).rejects.toThrow('the server doesn\'t have a resource type "othergizmos"');
    // Once the holder of the kind is gone, the waiting CRD gets its names and is established.
    await kubectl(server, ['delete', 'crd', 'gizmos.e2e.example.com', '--timeout=30s']);
    await waitFor(server, 'condition=Established', 'crd/othergizmos.e2e.example.com');
    expect(await kubectl(server, ['get', '--raw', '/apis/e2e.example.com/v1/othergizmos'])).toContain('"kind":"GizmoList"');
  });

  it('switches a storage version: storedVersions grows, the StorageVersion follows, old objects read in both versions', async () => {
    const encodingVersion = async () => {
      const raw = await kubectl(server, ['get', '--raw', '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/e2e.example.com.widgets']).catch(() => '{}');
      const storageVersion = JSON.parse(raw) as { status?: { storageVersions?: Array<{ encodingVersion: string }> } };
      return storageVersion.status?.storageVersions?.[0]?.encodingVersion ?? '';
    };
    const waitForEncoding = async (expected: string) => {
      let encoding = '';
      for (let i = 0; i < 50 && encoding !== expected; i++) {
        encoding = await encodingVersion();
        if (encoding !== expected) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return encoding;
    };
    await kubectl(server, ['apply', '-f', '-'], crd({ plural: 'widgets', kind: 'Widget' }));
    await waitFor(server, 'condition=Established', 'crd/widgets.e2e.example.com');
    const widget = (name: string, version: string) =>
      JSON.stringify({ apiVersion: `e2e.example.com/${version}`, kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size: 3 } });
    expect(await waitForEncoding('e2e.example.com/v1')).toBe('e2e.example.com/v1');
    await kubectl(server, ['apply', '-f', '-'], widget('old', 'v1'));
    const elsewhere = widget('lost', 'v1').replace('"namespace":"default"', '"namespace":"nowhere"');
    await expect(kubectl(server, ['create', '-f', '-'], elsewhere)).rejects.toThrow('namespaces "nowhere" not found');
    const table = await kubectl(server, ['get', 'widgets']);
    expect(table).toMatch(/^NAME\s+SIZE\s+AGE/);
    expect(table).toMatch(/old\s+3/);

    const twoVersions = crd({ plural: 'widgets', kind: 'Widget', versions: [{ name: 'v1', storage: false }, { name: 'v2', storage: true }] });
    await kubectl(server, ['apply', '-f', '-'], twoVersions);
    const storedVersions = async () => JSON.parse(await kubectl(server, ['get', 'crd', 'widgets.e2e.example.com', '-o', 'jsonpath={.status.storedVersions}'])) as string[];
    // v2 joins at once; the built-in migrator then rewrites the old object and prunes v1 (it may already have).
    expect([['v1', 'v2'], ['v2']]).toContainEqual(await storedVersions());
    let stored = await storedVersions();
    // A deadline, not a count of reads: each read is a kubectl run, slower on a loaded machine.
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && stored.length > 1; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      stored = await storedVersions();
    }
    expect(stored).toEqual(['v2']);
    // The StorageVersion follows the CRD's storage version (KEP-2339 for custom resources).
    expect(await waitForEncoding('e2e.example.com/v2')).toBe('e2e.example.com/v2');
    let v2 = '';
    for (let i = 0; i < 50 && !v2; i++) {
      v2 = await kubectl(server, ['get', '--raw', '/apis/e2e.example.com/v2/namespaces/default/widgets/old']).catch(() => '');
      if (!v2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(JSON.parse(v2)).toMatchObject({ apiVersion: 'e2e.example.com/v2', spec: { size: 3 } });
    const v1 = JSON.parse(await kubectl(server, ['get', '--raw', '/apis/e2e.example.com/v1/namespaces/default/widgets/old'])) as unknown;
    expect(v1).toMatchObject({ apiVersion: 'e2e.example.com/v1', spec: { size: 3 } });
    await kubectl(server, ['apply', '-f', '-'], widget('new', 'v2'));
    const both = await kubectl(server, ['get', 'widgets.v1.e2e.example.com', '-o', 'jsonpath={.items[*].apiVersion}']);
    expect(both).toBe('e2e.example.com/v1 e2e.example.com/v1');
  });

  it('shows each version\'s own printer columns and warns on a deprecated version', async () => {
    const definition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.e2e.example.com' },
      spec: {
        group: 'e2e.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
            additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
          },
          {
            name: 'v1beta1',
            served: true,
            storage: false,
            deprecated: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
          },
          {
            name: 'v1alpha1',
            served: true,
            storage: false,
            deprecated: true,
            deprecationWarning: 'use e2e.example.com/v1 Gadget',
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
          },
        ],
      },
    };
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(definition));
    await waitFor(server, 'condition=Established', 'crd/gadgets.e2e.example.com');
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'e2e.example.com/v1', kind: 'Gadget', metadata: { name: 'g', namespace: 'default' }, spec: { size: 3 } }));
    expect((await kubectl(server, ['get', 'gadgets.v1.e2e.example.com'])).split('\n')[0]).toMatch(/^NAME\s+SIZE\s+AGE\s*$/);
    expect((await kubectl(server, ['get', 'gadgets.v1beta1.e2e.example.com'])).split('\n')[0]).toMatch(/^NAME\s+AGE\s*$/);

    const client = server.client();
    const warning = async (path: string) => (await client.raw({ method: 'GET', path })).headers['warning'];
    expect(await warning('/apis/e2e.example.com/v1/namespaces/default/gadgets/g')).toBeUndefined();
    expect(await warning('/apis/e2e.example.com/v1beta1/namespaces/default/gadgets/g')).toBe('299 - "e2e.example.com/v1beta1 Gadget is deprecated"');
    expect(await warning('/apis/e2e.example.com/v1alpha1/namespaces/default/gadgets')).toBe('299 - "use e2e.example.com/v1 Gadget"');
    expect(await warning('/apis/e2e.example.com/v1alpha1/namespaces/default/gadgets?watch=1&timeoutSeconds=1')).toBe('299 - "use e2e.example.com/v1 Gadget"');
  });

  it('selects custom resources by selectableFields, pages them and honours dryRun', async () => {
    const sizes = JSON.parse(crd({ plural: 'sizes', kind: 'Size' })) as {
      spec: { versions: Array<Record<string, unknown>> };
    };
    const version = sizes.spec.versions[0];
    if (!version) throw new Error('no version');
    version['selectableFields'] = [{ jsonPath: '.spec.size' }];
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(sizes));
    await waitFor(server, 'condition=Established', 'crd/sizes.e2e.example.com');
    for (const [name, size] of [['small', 1], ['medium', 2], ['other-small', 1]] as const) {
      await kubectl(server, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'e2e.example.com/v1', kind: 'Size', metadata: { name, namespace: 'default' }, spec: { size } }));
    }
    const small = await kubectl(server, ['get', 'sizes', '--field-selector=spec.size=1', '-o', 'jsonpath={.items[*].metadata.name}']);
    expect(small).toBe('other-small small');
    await expect(kubectl(server, ['get', 'sizes', '--field-selector=spec.color=red'])).rejects.toThrow('field label not supported: spec.color');
    const page = JSON.parse(await kubectl(server, ['get', '--raw', '/apis/e2e.example.com/v1/namespaces/default/sizes?limit=2'])) as {
      items: unknown[];
      metadata: { continue?: string };
    };
    expect(page.items).toHaveLength(2);
    expect(page.metadata.continue).toBeTruthy();
    await kubectl(server, ['create', '--dry-run=server', '-f', '-'], JSON.stringify({ apiVersion: 'e2e.example.com/v1', kind: 'Size', metadata: { name: 'dry', namespace: 'default' }, spec: { size: 9 } }));
    await expect(kubectl(server, ['get', 'size', 'dry'])).rejects.toThrow('NotFound');
  });

  it('deletes a CRD only after deleting its custom resources in every namespace, then its StorageVersion', async () => {
    const routesFile = join(fixtures, 'gateway-api/gateway.networking.k8s.io_httproutes.yaml');
    const before = await kubectl(server, ['get', '--raw', '/apis/gateway.networking.k8s.io/v1/httproutes']);
    expect(JSON.parse(before)).toMatchObject({ items: [{ metadata: { name: 'http-app-1', namespace: 'default' } }] });
    const storageVersionPath = '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/gateway.networking.k8s.io.httproutes';
    expect(await kubectl(server, ['get', '--raw', storageVersionPath])).toContain('"encodingVersion":"gateway.networking.k8s.io/v1"');
    await kubectl(server, ['delete', 'crd', 'httproutes.gateway.networking.k8s.io', '--timeout=60s']);
    await expect(kubectl(server, ['get', 'crd', 'httproutes.gateway.networking.k8s.io'])).rejects.toThrow('NotFound');
    await expect(kubectl(server, ['get', '--raw', '/apis/gateway.networking.k8s.io/v1/httproutes'])).rejects.toThrow('NotFound');
    // Its StorageVersion goes with it.
    let storageVersion = 'present';
    for (let i = 0; i < 50 && storageVersion; i++) {
      storageVersion = await kubectl(server, ['get', '--raw', storageVersionPath]).catch(() => '');
      if (storageVersion) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(storageVersion).toBe('');
    await expect(kubectl(server, ['get', '--raw', storageVersionPath])).rejects.toThrow('NotFound');
    // Re-created, the CRD finds no instances left in storage.
    await kubectl(server, ['apply', '--server-side', '-f', routesFile]);
    await waitFor(server, 'condition=Established', 'crd/httproutes.gateway.networking.k8s.io');
    const after = await kubectl(server, ['get', '--raw', '/apis/gateway.networking.k8s.io/v1/httproutes']);
    expect(JSON.parse(after)).toMatchObject({ items: [] });
    const leftovers = await kubectl(server, ['get', '--raw', '/apis/gateway.networking.k8s.io/v1/gateways']);
    const gateways = JSON.parse(leftovers) as { items: Array<{ metadata: { name: string } }> };
    expect(gateways.items.map((item) => item.metadata.name)).toContain('my-gateway');
  });

  it('a CRD held by an instance\'s finalizer does not hold back other CRDs', async () => {
    await kubectl(server, ['apply', '-f', '-'], crd({ plural: 'holders', kind: 'Holder' }));
    await waitFor(server, 'condition=Established', 'crd/holders.e2e.example.com');
    const holders = '/apis/e2e.example.com/v1/namespaces/default/holders';
    const client = server.client();
    for (let attempt = 0; (await client.raw({ method: 'GET', path: holders })).statusCode !== 200 && attempt < 100; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
    await client.request({ method: 'POST', path: holders, body: { apiVersion: 'e2e.example.com/v1', kind: 'Holder', metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    await kubectl(server, ['delete', 'crd', 'holders.e2e.example.com', '--wait=false']);
    const condition = async () =>
      ((JSON.parse(await kubectl(server, ['get', 'crd', 'holders.e2e.example.com', '-o', 'json'])) as { status: { conditions?: Array<{ type: string; reason: string }> } }).status.conditions ?? []).find((c) => c.type === 'Terminating')?.reason;
    for (let attempt = 0; (await condition()) !== 'InstanceDeletionInProgress' && attempt < 100; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await condition()).toBe('InstanceDeletionInProgress');
    // Another CRD is named and established meanwhile (the wait gives up after 30 s, before the first one's minute).
    await kubectl(server, ['apply', '-f', '-'], crd({ plural: 'bystanders', kind: 'Bystander' }));
    await waitFor(server, 'condition=Established', 'crd/bystanders.e2e.example.com');
    // Released, the first one goes.
    await client.request({ method: 'PATCH', path: `${holders}/held`, body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    await kubectl(server, ['wait', '--for=delete', 'crd/holders.e2e.example.com', '--timeout=30s']);
  });
});
