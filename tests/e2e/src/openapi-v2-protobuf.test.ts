import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kubectl } from './harness.js';
import { serverForFile } from './server-for-file.js';

const shared = serverForFile();

const gatewayAPI = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/crds/gateway-api');

const protobufAccept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe('/openapi/v2 as gnostic protobuf, for kubectl client-side validation', () => {
  it('answers the protobuf Accept with kube-openapi\'s Content-Type, the JSON ETag and Vary: Accept', async () => {
    const json = await shared.admin.raw({ method: 'GET', path: '/openapi/v2' });
    const protobuf = await shared.admin.raw({ method: 'GET', path: '/openapi/v2', accept: protobufAccept });
    expect(protobuf.statusCode).toBe(200);
    expect(protobuf.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(protobuf.headers['etag']).toBe(json.headers['etag']);
    expect(protobuf.headers['vary']).toBe('Accept');
    // Document.swagger (field 1, length-delimited) = "2.0".
    expect([...protobuf.body.subarray(0, 5)]).toEqual([0x0a, 3, ...Buffer.from('2.0')]);
    const preferred = await shared.admin.raw({ method: 'GET', path: '/openapi/v2', accept: `application/json;q=0.5, ${protobufAccept}` });
    expect(preferred.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const refused = await shared.admin.raw({ method: 'GET', path: '/openapi/v2', accept: 'application/xml' });
    expect(refused.statusCode).toBe(406);
  });

  it('lists the discovery endpoints beside the resources, as upstream (/api/, /api/v1/, /apis/..., /version/), in v2 and in each v3 group-version', async () => {
    const v2 = JSON.parse((await shared.admin.raw({ method: 'GET', path: '/openapi/v2' })).body.toString()) as {
      paths: Record<string, { get?: { operationId: string; tags: string[]; produces: string[]; responses: Record<string, { schema?: { $ref: string } }> } }>;
      definitions: Record<string, unknown>;
    };
    const operations = Object.fromEntries(
      ['/api/', '/api/v1/', '/apis/', '/apis/coordination.k8s.io/', '/apis/coordination.k8s.io/v1/', '/version/'].map((path) => [path, v2.paths[path]?.get?.operationId]),
    );
    expect(operations).toEqual({
      '/api/': 'getCoreAPIVersions',
      '/api/v1/': 'getCoreV1APIResources',
      '/apis/': 'getAPIVersions',
      '/apis/coordination.k8s.io/': 'getCoordinationAPIGroup',
      '/apis/coordination.k8s.io/v1/': 'getCoordinationV1APIResources',
      '/version/': 'getCodeVersion',
    });
    const resources = v2.paths['/api/v1/']?.get;
    expect(resources?.tags).toEqual(['core_v1']);
    expect(resources?.produces).toEqual(['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml']);
    expect(resources?.responses['200']?.schema).toEqual({ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList' });
    for (const name of ['APIResourceList', 'APIResource', 'APIVersions', 'APIGroupList', 'APIGroup'])
      expect(v2.definitions[`io.k8s.apimachinery.pkg.apis.meta.v1.${name}`], name).toBeDefined();
    const v3 = JSON.parse((await shared.admin.raw({ method: 'GET', path: '/openapi/v3/apis/coordination.k8s.io/v1' })).body.toString()) as {
      paths: Record<string, { get?: { operationId: string } }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(v3.paths['/apis/coordination.k8s.io/v1/']?.get?.operationId).toBe('getCoordinationV1APIResources');
    expect(v3.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList']).toBeDefined();
  });

  it('kubectl get cm -o yaml > all.yaml && kubectl apply -f all.yaml (a kind: List) works', async () => {
    await kubectl(shared.server, ['create', 'configmap', 'listed', '-n', 'default', '--from-literal=a=1']);
    await kubectl(shared.server, ['create', 'secret', 'generic', 'listed', '-n', 'default', '--from-literal=b=2']);
    const dir = mkdtempSync(join(tmpdir(), 'kapi-list-'));
    for (const resource of ['cm', 'secret,cm,serviceaccount,role,rolebinding']) {
      const all = await kubectl(shared.server, ['get', resource, '-n', 'default', '-o', 'yaml']);
      expect(all).toContain('kind: List');
      const file = join(dir, 'all.yaml');
      writeFileSync(file, all);
      const out = await kubectl(shared.server, ['apply', '--validate=true', '-f', file]);
      expect(out).toContain('configmap/listed');
    }
  });

  it('kubectl rejects an unknown field inside a List from the protobuf schema, before sending anything', async () => {
    const list = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: never-stored
    namespace: default
  data:
    a: "1"
  bogus: 3
`;
    const failure = await kubectl(shared.server, ['apply', '--validate=true', '-f', '-'], list).then(
      () => 'applied',
      (error: Error) => error.message,
    );
    expect(failure).toContain('ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap');
    const stored = await shared.admin.raw({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/never-stored' });
    expect(stored.statusCode).toBe(404);
  });

  it('a List of custom resources validates against the CRDs\' schemas in the protobuf document', async () => {
    for (const file of ['gatewayclasses', 'gateways', 'httproutes', 'referencegrants'])
      await kubectl(shared.server, ['apply', '--server-side', '-f', join(gatewayAPI, `gateway.networking.k8s.io_${file}.yaml`)]);
    await kubectl(shared.server, ['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s']);
    await kubectl(shared.server, ['apply', '-f', join(gatewayAPI, 'examples/0-namespaces.yaml')]);
    await kubectl(shared.server, ['apply', '-f', join(gatewayAPI, 'examples/basic-http.yaml')]);
    const all = await kubectl(shared.server, ['get', 'httproutes,gateways,cm', '-A', '-o', 'yaml']);
    expect(all).toContain('kind: HTTPRoute');
    const file = join(mkdtempSync(join(tmpdir(), 'kapi-list-')), 'routes.yaml');
    writeFileSync(file, all);
    expect(await kubectl(shared.server, ['apply', '--validate=true', '-f', file])).toContain('httproute.gateway.networking.k8s.io/http-app-1');
    const bad = all.replace('kind: HTTPRoute\n', 'kind: HTTPRoute\n  bogus: 1\n');
    writeFileSync(file, bad);
    const failure = await kubectl(shared.server, ['apply', '--validate=true', '-f', file]).then(
      () => 'applied',
      (error: Error) => error.message,
    );
    // kubectl's own message (client-side, from the protobuf schema), not the server's strict decoding error.
    expect(failure).toMatch(/ValidationError\(HTTPRoute\): unknown field "bogus" in \S+\.v1\.HTTPRoute/);
  });
});
