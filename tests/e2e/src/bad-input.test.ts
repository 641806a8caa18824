import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, type RestRequest } from '@kapi/client';
import { startServer, type TestServer } from './harness.js';

let server: TestServer;
let admin: RestClient;
let bob: RestClient;
let anonymous: RestClient;

const path = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'kapi-tokens-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'bob-token,bob,1001,"developers"\n');
  server = await startServer({ args: [`--token-auth-file=${tokens}`] });
  admin = server.client();
  const ca = admin.config.ca;
  bob = new RestClient({ server: server.url, token: 'bob-token', ...(ca ? { ca } : {}) });
  anonymous = new RestClient({ server: server.url, ...(ca ? { ca } : {}) });
});

afterAll(async () => {
  bob?.close();
  anonymous?.close();
  await server?.stop();
});

async function send(
  client: RestClient,
  request: RestRequest,
): Promise<{
  code: number;
  status: { reason?: string; message?: string; details?: { causes?: Array<{ field?: string }> } };
}> {
  const response = await client.raw(request);
  return { code: response.statusCode, status: JSON.parse(response.body.toString() || '{}') as never };
}

async function names(): Promise<string[]> {
  const list = await admin.request<{ items: Array<{ metadata: { name: string } }> }>({ method: 'GET', path });
  return list.items.map((item) => item.metadata.name).sort();
}

const cm = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data: { a: '1' },
  ...extra,
});

describe('bad input gets a clear Status and changes nothing', () => {
  it('malformed JSON -> 400', async () => {
    const before = await names();
    const result = await send(admin, {
      method: 'POST',
      path,
      body: Buffer.from('{"kind": "ConfigMap",'),
      contentType: 'application/json',
    });
    expect(result.code).toBe(400);
    expect(result.status.reason).toBe('BadRequest');
    expect(await names()).toEqual(before);
  });

  it('kind/apiVersion not matching the URL -> 400', async () => {
    const before = await names();
    const result = await send(admin, { method: 'POST', path, body: { ...cm('wrong-kind'), kind: 'Secret' } });
    expect(result.code).toBe(400);
    expect(await names()).toEqual(before);
  });

  it('URL name differing from the body name -> 400', async () => {
    await admin.request({ method: 'POST', path, body: cm('named') });
    const result = await send(admin, { method: 'PUT', path: `${path}/named`, body: cm('other-name') });
    expect(result.code).toBe(400);
    expect(await names()).not.toContain('other-name');
  });

  it('invalid name -> 422 Invalid with a metadata.name cause', async () => {
    const before = await names();
    const result = await send(admin, { method: 'POST', path, body: cm('Not_Valid') });
    expect(result.code).toBe(422);
    expect(result.status.reason).toBe('Invalid');
    expect(result.status.details?.causes?.map((cause) => cause.field)).toContain('metadata.name');
    expect(await names()).toEqual(before);
  });

  it('failed validation -> 422 with field causes', async () => {
    const result = await send(admin, {
      method: 'POST',
      path: '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers',
      body: {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'bad' },
        spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, minReplicas: 3, maxReplicas: 2 },
      },
    });
    expect(result.code).toBe(422);
    expect(result.status.details?.causes?.map((cause) => cause.field)).toContain('spec.maxReplicas');
  });

  it('body over 3 MiB -> 413', async () => {
    const before = await names();
    const result = await send(admin, {
      method: 'POST',
      path,
      body: cm('huge', { data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } }),
    });
    expect(result.code).toBe(413);
    expect(await names()).toEqual(before);
  });

  it('unsupported media type -> 415', async () => {
    const result = await send(admin, {
      method: 'POST',
      path,
      body: Buffer.from('a=b'),
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(result.code).toBe(415);
    // Server-side apply is served; its CBOR form is not (upstream gates it behind CBORServingAndStorage).
    const apply = await send(admin, {
      method: 'PATCH',
      path: `${path}/named`,
      body: Buffer.from('{}'),
      contentType: 'application/apply-patch+cbor',
    });
    expect(apply.code).toBe(415);
    // A built-in's patch types, strategic merge patch among them, as upstream's installer lists them.
    expect(apply.status.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('unknown fields under fieldValidation=Strict -> 400 naming them', async () => {
    const before = await names();
    const result = await send(admin, {
      method: 'POST',
      path,
      query: { fieldValidation: 'Strict' },
      body: cm('strict', { bogus: true }),
    });
    expect(result.code).toBe(400);
    expect(result.status.message).toContain('bogus');
    expect(await names()).toEqual(before);
  });

  it('a write without credentials -> 403 for system:anonymous', async () => {
    const before = await names();
    const result = await send(anonymous, { method: 'POST', path, body: cm('anon') });
    expect(result.code).toBe(403);
    expect(result.status.message).toBe(
      'configmaps is forbidden: User "system:anonymous" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    expect(await names()).toEqual(before);
  });

  it('a write without RBAC permission -> 403 with Kubernetes wording', async () => {
    const before = await names();
    const result = await send(bob, { method: 'POST', path, body: cm('bobs') });
    expect(result.code).toBe(403);
    expect(result.status.message).toBe(
      'configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "default"',
    );
    expect(await names()).toEqual(before);
  });

  it('a stale update -> 409 with the conflict text', async () => {
    const current = await admin.request<{ metadata: { resourceVersion: string } }>({
      method: 'GET',
      path: `${path}/named`,
    });
    await admin.request({
      method: 'PUT',
      path: `${path}/named`,
      body: {
        ...cm('named'),
        metadata: { name: 'named', resourceVersion: current.metadata.resourceVersion },
        data: { a: '2' },
      },
    });
    const result = await send(admin, {
      method: 'PUT',
      path: `${path}/named`,
      body: {
        ...cm('named'),
        metadata: { name: 'named', resourceVersion: current.metadata.resourceVersion },
        data: { a: '3' },
      },
    });
    expect(result.code).toBe(409);
    expect(result.status.message).toBe(
      'Operation cannot be fulfilled on configmaps "named": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('a create into a missing namespace -> 404', async () => {
    const result = await send(admin, {
      method: 'POST',
      path: '/api/v1/namespaces/nope/configmaps',
      body: cm('x'),
    });
    expect(result.code).toBe(404);
    expect(result.status.message).toBe('namespaces "nope" not found');
  });
});

describe('query parameters are parsed as Go parses them', () => {
  const parseBool = (name: string, value: string) =>
    `failed to parse ${name}: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`;
  const parseInt = (name: string, value: string, why = 'invalid syntax') =>
    `failed to parse ${name}: strconv.ParseInt: parsing ${JSON.stringify(value)}: ${why}`;
  const cases: Array<{ name: string; method: RestRequest['method']; item?: boolean; query: Record<string, string>; message: string; contentType?: string }> = [
    { name: 'watch', method: 'GET', query: { watch: 'garbage' }, message: parseBool('watch', 'garbage') },
    { name: 'watch yes', method: 'GET', query: { watch: 'yes' }, message: parseBool('watch', 'yes') },
    { name: 'allowWatchBookmarks', method: 'GET', query: { allowWatchBookmarks: 'maybe' }, message: parseBool('allowWatchBookmarks', 'maybe') },
    { name: 'sendInitialEvents', method: 'GET', query: { sendInitialEvents: 'tRUE' }, message: parseBool('sendInitialEvents', 'tRUE') },
    { name: 'limit syntax', method: 'GET', query: { limit: '1.5' }, message: parseInt('limit', '1.5') },
    { name: 'limit overflow', method: 'GET', query: { limit: '99999999999999999999' }, message: parseInt('limit', '99999999999999999999', 'value out of range') },
    { name: 'timeoutSeconds', method: 'GET', query: { timeoutSeconds: 'abc' }, message: parseInt('timeoutSeconds', 'abc') },
    { name: 'timeoutSeconds overflow', method: 'GET', query: { watch: '1', timeoutSeconds: '9223372036854775808' }, message: parseInt('timeoutSeconds', '9223372036854775808', 'value out of range') },
    { name: 'gracePeriodSeconds', method: 'DELETE', item: true, query: { gracePeriodSeconds: 'abc' }, message: parseInt('gracePeriodSeconds', 'abc') },
    { name: 'gracePeriodSeconds overflow', method: 'DELETE', item: true, query: { gracePeriodSeconds: '-9223372036854775809' }, message: parseInt('gracePeriodSeconds', '-9223372036854775809', 'value out of range') },
    { name: 'force', method: 'PATCH', item: true, query: { force: 'y', fieldManager: 'me' }, message: parseBool('force', 'y'), contentType: 'application/apply-patch+yaml' },
  ];

  it.each(cases)('$name -> 400 with the Go parser error, nothing changed', async ({ method, item, query, message, contentType }) => {
    await admin.raw({ method: 'POST', path, body: cm('query-target') });
    const before = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}/query-target` });
    const result = await send(admin, {
      method,
      path: item ? `${path}/query-target` : path,
      query,
      ...(contentType ? { body: Buffer.from(JSON.stringify(cm('query-target', { data: { b: '2' } }))), contentType } : {}),
    });
    expect(result.code).toBe(400);
    expect(result.status.reason).toBe('BadRequest');
    expect(result.status.message).toBe(message);
    const after = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}/query-target` });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it.each(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'])(
    'watch=%s is a boolean strconv.ParseBool accepts',
    async (value) => {
      const result = await admin.raw({ method: 'GET', path, query: { watch: value, timeoutSeconds: '1' } });
      expect(result.statusCode).toBe(200);
    },
  );
});

describe('malformed bodies are refused, never a 500, and nothing is stored', () => {
  it('a metadata field of the wrong JSON type -> 400 with the Go decoder message', async () => {
    const before = await names();
    const result = await send(admin, {
      method: 'POST',
      path,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fin', finalizers: 'x' } },
    });
    expect(result.code).toBe(400);
    expect(result.status.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string',
    );
    expect(await names()).toEqual(before);
  });

  it('resourceVersion set on create -> 400 with upstream text', async () => {
    const before = await names();
    const result = await send(admin, {
      method: 'POST',
      path,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'with-rv', resourceVersion: '5' } },
    });
    expect(result.code).toBe(400);
    expect(result.status.message).toBe('resourceVersion should not be set on objects to be created');
    expect(await names()).toEqual(before);
  });

  it('YAML !!binary is read as the string of its bytes (as sigs.k8s.io/yaml does)', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-binary\ndata:\n  a: !!binary aGVsbG8=\n';
    const response = await admin.raw({ method: 'POST', path, body: Buffer.from(yaml), contentType: 'application/yaml' });
    expect(response.statusCode).toBe(201);
    const stored = await admin.request<{ data: Record<string, string> }>({ method: 'GET', path: `${path}/yaml-binary` });
    expect(stored.data).toEqual({ a: 'hello' });
  });

  it('a strategic merge patch with an unknown $patch directive -> 400, object unchanged', async () => {
    await admin.raw({ method: 'POST', path, body: cm('smp-target') });
    const before = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}/smp-target` });
    const result = await send(admin, {
      method: 'PATCH',
      path: `${path}/smp-target`,
      body: Buffer.from('{"$patch":"garbage"}'),
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(result.code).toBe(400);
    expect(result.status.message).toBe('unknown patch type: garbage in map: {"$patch":"garbage"}');
    const after = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}/smp-target` });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });
});

describe('bodies nested too deep -> 400, the server stays up, nothing stored', () => {
  // A few KB of brackets: YAML's parser recursed until the stack ran out inside a regular expression,
  // which killed the process; JSON reached the server's own recursive walks and answered 500.
  const deepJson = (depth: number) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
  const deepFlowYaml = (depth: number) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  const deepBlockYaml = (depth: number) => {
    let text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\nx:\n';
    for (let level = 1; level <= depth; level++) text += `${' '.repeat(level)}a:\n`;
    return `${text}${' '.repeat(depth + 1)}b: 1\n`;
  };
  const selfReview = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

  it.each([
    ['JSON, 10000 levels', 'POST', path, deepJson(10_000), 'application/json', "couldn't get version/kind; json parse error: exceeded max depth"],
    ['YAML flow, 2000 levels', 'POST', path, deepFlowYaml(2000), 'application/yaml', 'error converting YAML to JSON: exceeded max depth'],
    ['YAML block, 1500 levels', 'POST', path, deepBlockYaml(1500), 'application/yaml', 'error converting YAML to JSON: exceeded max depth'],
    ['YAML flow to an authenticated user\'s review (no RBAC needed)', 'POST', selfReview, deepFlowYaml(5000), 'application/yaml', 'error converting YAML to JSON: exceeded max depth'],
    ['merge patch, 10000 levels', 'PATCH', `${path}/deep-target`, deepJson(10_000), 'application/merge-patch+json', 'invalid JSON patch: exceeded max depth'],
    ['apply patch, 2000 levels', 'PATCH', `${path}/deep-target?fieldManager=m`, deepFlowYaml(2000), 'application/apply-patch+yaml', 'error encoding patch: exceeded max depth'],
  ])('%s', async (_name, method, target, body, contentType, message) => {
    if (!(await names()).includes('deep-target')) await admin.request({ method: 'POST', path, body: cm('deep-target') });
    const before = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}/deep-target` });
    const namesBefore = await names();
    const result = await send(method === 'POST' && target === selfReview ? bob : admin, { method: method as RestRequest['method'], path: target, body: Buffer.from(body), contentType });
    expect(result.code).toBe(400);
    expect(result.status.reason).toBe('BadRequest');
    expect(result.status.message).toContain(message);
    // The server answers the next request, and nothing changed.
    expect(await names()).toEqual(namesBefore);
    const after = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}/deep-target` });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('a body nested as deep as the limit allows is still served', async () => {
    // 250 levels of YAML under a ConfigMap's data: parsed, then refused for its types, not for its depth.
    let text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep-ok\ndata:\n';
    for (let level = 1; level <= 250; level++) text += `${' '.repeat(level)}a:\n`;
    text += `${' '.repeat(251)}b: 1\n`;
    const result = await send(admin, { method: 'POST', path, body: Buffer.from(text), contentType: 'application/yaml' });
    expect(result.code).toBe(400);
    expect(result.status.message).toContain('json: cannot unmarshal object into Go struct field ConfigMap.data of type string');
  });
});

describe('verbs a route does not serve -> 405, nothing changed', () => {
  it('namespaces and services have no deletecollection (it terminated namespaces, then failed on default)', async () => {
    await admin.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'keep-me' } } });
    const result = await send(admin, { method: 'DELETE', path: '/api/v1/namespaces' });
    expect(result.code).toBe(405);
    expect(result.status.reason).toBe('MethodNotAllowed');
    const kept = await admin.request<{ status?: { phase?: string }; metadata: { deletionTimestamp?: string } }>({ method: 'GET', path: '/api/v1/namespaces/keep-me' });
    expect(kept.metadata.deletionTimestamp).toBeUndefined();
    expect(kept.status?.phase).toBe('Active');
    expect((await send(admin, { method: 'DELETE', path: '/api/v1/namespaces/default/services' })).code).toBe(405);
    const discovery = await admin.request<{ resources: Array<{ name: string; verbs: string[] }> }>({ method: 'GET', path: '/api/v1' });
    for (const name of ['namespaces', 'services']) {
      expect(discovery.resources.find((resource) => resource.name === name)?.verbs.sort()).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    }
  });

  it('POST to a named object, PUT and PATCH to a collection', async () => {
    const before = await names();
    expect((await send(admin, { method: 'POST', path: `${path}/posted-by-name`, body: cm('posted-by-name') })).code).toBe(405);
    expect((await send(admin, { method: 'PUT', path, body: cm('put-on-collection') })).code).toBe(405);
    const patched = await send(admin, { method: 'PATCH', path, body: Buffer.from('{"data":{"a":"2"}}'), contentType: 'application/merge-patch+json' });
    expect(patched.code).toBe(405);
    expect(patched.status.reason).toBe('MethodNotAllowed');
    expect(await names()).toEqual(before);
  });
});

describe('storage version objects are validated as upstream', () => {
  it('a StorageVersionMigration without a spec -> 422 naming spec.resource.resource', async () => {
    const migrations = '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations';
    const result = await send(admin, { method: 'POST', path: migrations, body: { apiVersion: 'storagemigration.k8s.io/v1beta1', kind: 'StorageVersionMigration', metadata: { name: 'no-spec' } } });
    expect(result.code).toBe(422);
    expect(result.status.details?.causes?.map((cause) => cause.field)).toContain('spec.resource.resource');
    expect((await admin.raw({ method: 'GET', path: `${migrations}/no-spec` })).statusCode).toBe(404);
  });

  it('a StorageVersion: its name splits at the last dot, and commonEncodingVersion is set exactly when servers agree', async () => {
    const storageVersions = '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions';
    const storageVersion = (name: string) => ({ apiVersion: 'internal.apiserver.k8s.io/v1alpha1', kind: 'StorageVersion', metadata: { name }, spec: {} });
    const badResource = await send(admin, { method: 'POST', path: storageVersions, body: storageVersion('apps.1deployments') });
    expect(badResource.code).toBe(422);
    expect(badResource.status.message).toContain('the resource segment a DNS-1035 label must consist of');
    expect((await send(admin, { method: 'POST', path: storageVersions, body: storageVersion('example.com.gadgets') })).code).toBe(201);
    const current = await admin.request<Record<string, unknown>>({ method: 'GET', path: `${storageVersions}/example.com.gadgets` });
    const status = { storageVersions: [{ apiServerID: 'server-a', encodingVersion: 'example.com/v1', decodableVersions: ['example.com/v1'] }] };
    const missingCommon = await send(admin, { method: 'PUT', path: `${storageVersions}/example.com.gadgets/status`, body: { ...current, status } });
    expect(missingCommon.code).toBe(422);
    expect(missingCommon.status.message).toContain('the common encoding version is example.com/v1');
    const agreed = await send(admin, { method: 'PUT', path: `${storageVersions}/example.com.gadgets/status`, body: { ...current, status: { ...status, commonEncodingVersion: 'example.com/v1' } } });
    expect(agreed.code).toBe(200);
  });
});

describe('DeleteOptions are checked before anything is deleted', () => {
  it.each([
    ['orphanDependents beside propagationPolicy (query)', '?orphanDependents=true&propagationPolicy=Background', undefined, 422, 'orphanDependents and deletionPropagation cannot be both set'],
    ['orphanDependents beside propagationPolicy (body)', '', { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false, propagationPolicy: 'Orphan' }, 422, 'orphanDependents and deletionPropagation cannot be both set'],
    ['a body that is an array', '', [], 400, 'json: cannot unmarshal array into Go value of type v1.DeleteOptions'],
    ['gracePeriodSeconds of the wrong type', '', { gracePeriodSeconds: 'x' }, 400, 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
  ])('%s', async (_name, query, body, code, message) => {
    await admin.request({ method: 'POST', path, body: cm('delete-target') }).catch(() => undefined);
    const result = await send(admin, { method: 'DELETE', path: `${path}/delete-target${query}`, ...(body === undefined ? {} : { body }) });
    expect(result.code).toBe(code);
    expect(result.status.message).toContain(message);
    expect((await names()).includes('delete-target')).toBe(true);
  });
});

describe('semantic refusals as upstream, nothing stored', () => {
  it('a patch that changes metadata.namespace -> 400, resourceVersion unchanged', async () => {
    await admin.raw({ method: 'POST', path, body: cm('ns-move') });
    const before = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}/ns-move` });
    for (const contentType of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const result = await send(admin, {
        method: 'PATCH',
        path: `${path}/ns-move`,
        body: Buffer.from('{"metadata":{"namespace":"kube-system"}}'),
        contentType,
      });
      expect(result.code).toBe(400);
      expect(result.status.message).toBe(
        'the namespace of the object (kube-system) does not match the namespace on the URL (default)',
      );
    }
    const after = await admin.request<{ metadata: { resourceVersion: string } }>({ method: 'GET', path: `${path}/ns-move` });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('a ConfigMap whose data and binaryData share a key -> 422', async () => {
    const before = await names();
    const result = await send(admin, { method: 'POST', path, body: cm('shared-key', { binaryData: { a: 'aGVsbG8=' } }) });
    expect(result.code).toBe(422);
    expect(result.status.message).toBe(
      'ConfigMap "shared-key" is invalid: binaryData: Invalid value: "a": duplicate of key present in data',
    );
    expect(await names()).toEqual(before);
  });

  it.each([
    ['kubernetes.io/tls without tls.crt', { type: 'kubernetes.io/tls', data: { 'tls.key': 'eA==' } }, 'data[tls.crt]'],
    ['kubernetes.io/dockerconfigjson that is not JSON', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('notjson').toString('base64') } }, 'data[.dockerconfigjson]'],
    ['kubernetes.io/service-account-token without its account', { type: 'kubernetes.io/service-account-token' }, 'metadata.annotations[kubernetes.io/service-account.name]'],
    ['kubernetes.io/basic-auth without username and password', { type: 'kubernetes.io/basic-auth', data: { x: 'eA==' } }, 'data[username]'],
    ['kubernetes.io/ssh-auth without a private key', { type: 'kubernetes.io/ssh-auth' }, 'data[ssh-privatekey]'],
    ['data over 1 MiB', { data: { a: Buffer.alloc(1024 * 1024 + 10, 120).toString('base64') } }, 'data'],
  ])('a Secret of %s -> 422, nothing stored', async (_name, fields, field) => {
    const secrets = '/api/v1/namespaces/default/secrets';
    const result = await send(admin, { method: 'POST', path: secrets, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad-secret' }, ...fields } });
    expect(result.code).toBe(422);
    expect(result.status.details?.causes?.map((cause) => cause.field)).toContain(field);
    expect((await admin.raw({ method: 'GET', path: `${secrets}/bad-secret` })).statusCode).toBe(404);
  });

  it.each([
    ['a Lease with a duration of 0', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'bad-lease' }, spec: { leaseDurationSeconds: 0 } }, 'spec.leaseDurationSeconds'],
    ['a Lease with negative transitions', '/apis/coordination.k8s.io/v1/namespaces/default/leases', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'bad-lease' }, spec: { leaseTransitions: -1 } }, 'spec.leaseTransitions'],
    ['an Event about an object of another namespace', '/api/v1/namespaces/default/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'bad-event' }, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'other' } }, 'involvedObject.namespace'],
    ['an Event with an eventTime but no reporting component', '/api/v1/namespaces/default/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'bad-event' }, eventTime: '2026-01-01T00:00:00.000000Z', involvedObject: { kind: 'ConfigMap', name: 'x', namespace: 'default' }, action: 'A', reason: 'R', reportingInstance: 'i' }, 'reportingComponent'],
  ])('%s -> 422, nothing stored', async (_name, collection, body, field) => {
    const result = await send(admin, { method: 'POST', path: collection, body });
    expect(result.code).toBe(422);
    expect(result.status.details?.causes?.map((cause) => cause.field)).toContain(field);
    expect((await admin.raw({ method: 'GET', path: `${collection}/${body.metadata.name}` })).statusCode).toBe(404);
  });

  it('a ConfigMap over 1 MiB -> 422 Too long', async () => {
    const before = await names();
    const result = await send(admin, { method: 'POST', path, body: cm('too-big', { data: { a: 'x'.repeat(1024 * 1024) } }) });
    expect(result.code).toBe(422);
    expect(result.status.reason).toBe('Invalid');
    expect(result.status.message).toBe('ConfigMap "too-big" is invalid: []: Too long: may not be more than 1048576 bytes');
    expect(await names()).toEqual(before);
  });
});

describe('duplicate JSON keys', () => {
  const body = Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-keys"},"data":{"a":"1","a":"2"}}');

  it('under fieldValidation=Strict -> 400 naming the key, nothing stored', async () => {
    const before = await names();
    const result = await send(admin, { method: 'POST', path, query: { fieldValidation: 'Strict' }, body, contentType: 'application/json' });
    expect(result.code).toBe(400);
    expect(result.status.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "a"',
    );
    expect(await names()).toEqual(before);
  });

  it('under the default Warn -> stored with a warning', async () => {
    const response = await admin.raw({ method: 'POST', path, body, contentType: 'application/json' });
    expect(response.statusCode).toBe(201);
    expect(response.headers['warning']).toBe('299 - "duplicate field \\"a\\""');
  });
});

describe('values a built-in\'s Go types cannot take -> 400 in the words of Go\'s decoder', () => {
  it.each([
    ['a number in a ConfigMap\'s data', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' }, data: { a: 5 } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
    ['a string for an HPA\'s minReplicas', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'typed' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, minReplicas: '3', maxReplicas: 3 } }, 'HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: json: cannot unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.minReplicas of type int32'],
    ['a fraction for an HPA\'s maxReplicas', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'typed' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 2.5 } }, 'json: cannot unmarshal number 2.5 into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32'],
  ])('%s, nothing stored', async (_name, collection, body, message) => {
    const result = await send(admin, { method: 'POST', path: collection, body });
    expect(result.code).toBe(400);
    expect(result.status.reason).toBe('BadRequest');
    expect(result.status.message).toContain(message);
    expect((await admin.raw({ method: 'GET', path: `${collection}/typed` })).statusCode).toBe(404);
  });

  it('an int32 field of 1e23 -> 400, nothing stored', async () => {
    const hpas = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
    const result = await send(admin, {
      method: 'POST',
      path: hpas,
      body: Buffer.from(
        '{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"huge"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"x"},"maxReplicas":1e23}}',
      ),
      contentType: 'application/json',
    });
    expect(result.code).toBe(400);
    expect(result.status.message).toContain('json: cannot unmarshal number 1e+23 into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32');
    const missing = await send(admin, { method: 'GET', path: `${hpas}/huge` });
    expect(missing.code).toBe(404);
  });
});

describe("node's own HTTP parser errors are answered as a Status", () => {
  async function rawExchange(request: string): Promise<string> {
    const { connect } = await import('node:tls');
    const url = new URL(server.url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false }, () => socket.end(request));
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  it('headers past the limit -> 431 with a JSON Status', async () => {
    const answer = await rawExchange(`GET /version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('application/json');
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { kind: string; code: number };
    expect(body).toMatchObject({ kind: 'Status', code: 431 });
  });

  it('an unparsable request line -> 400 with a JSON Status', async () => {
    const answer = await rawExchange('GARBAGE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { kind: string; code: number; reason: string };
    expect(body).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
  });
});
