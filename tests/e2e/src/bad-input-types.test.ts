import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestClient, RestRequest } from '@kapi/client';
import { kubectl, startServer, type TestServer } from './harness.js';

/**
 * Values of the wrong JSON type, and objects missing a required member, sent the ways a client can
 * send them (create, update, each patch type, server-side apply): each gets a 400 or 422 Status that
 * names the problem, never a 500, and nothing is written.
 */

let server: TestServer;
let admin: RestClient;

beforeAll(async () => {
  server = await startServer();
  admin = server.client();
});

afterAll(async () => {
  await server?.stop();
});

interface Answer {
  code: number;
  reason?: string;
  message: string;
  fields: string[];
}

async function send(request: RestRequest): Promise<Answer> {
  const response = await admin.raw(request);
  const status = JSON.parse(response.body.toString() || '{}') as {
    reason?: string;
    message?: string;
    details?: { causes?: Array<{ field?: string }> };
  };
  return {
    code: response.statusCode,
    ...(status.reason ? { reason: status.reason } : {}),
    message: status.message ?? '',
    fields: (status.details?.causes ?? []).map((cause) => cause.field ?? ''),
  };
}

/** The object's resourceVersion, or undefined when it does not exist. */
async function resourceVersionOf(path: string): Promise<string | undefined> {
  const response = await admin.raw({ method: 'GET', path });
  if (response.statusCode === 404) return undefined;
  return (JSON.parse(response.body.toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
}

const configmaps = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...metadata },
  data: { a: '1' },
});

describe('metadata of the wrong type', () => {
  it('a create: a null owner reference is an empty one (422 naming its fields); other types are 400, as Go decodes them', async () => {
    const nullReference = await send({ method: 'POST', path: configmaps, body: configMap('owners-null', { ownerReferences: [null] }) });
    expect([nullReference.code, nullReference.reason]).toEqual([422, 'Invalid']);
    expect(nullReference.fields).toEqual(
      expect.arrayContaining([
        'metadata.ownerReferences[0].apiVersion',
        'metadata.ownerReferences[0].kind',
        'metadata.ownerReferences[0].name',
        'metadata.ownerReferences[0].uid',
      ]),
    );
    const stringReference = await send({ method: 'POST', path: configmaps, body: configMap('owners-string', { ownerReferences: ['x'] }) });
    expect([stringReference.code, stringReference.reason]).toEqual([400, 'BadRequest']);
    expect(stringReference.message).toContain('json: cannot unmarshal string into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference');
    const numberField = await send({ method: 'POST', path: configmaps, body: configMap('owners-field', { ownerReferences: [{ apiVersion: 1 }] }) });
    expect(numberField.code).toBe(400);
    expect(numberField.message).toContain('json: cannot unmarshal number into Go struct field OwnerReference.metadata.ownerReferences.apiVersion of type string');
    const managedFields = await send({ method: 'PUT', path: `${configmaps}/owners-null`, body: configMap('owners-null', { managedFields: [{ manager: ['m'] }] }) });
    expect(managedFields.code).toBe(400);
    expect(managedFields.message).toContain('ManagedFieldsEntry.metadata.managedFields.manager of type string');
    for (const name of ['owners-null', 'owners-string', 'owners-field']) expect(await resourceVersionOf(`${configmaps}/${name}`)).toBeUndefined();
  });

  it('a patch whose result does not decode: 422 with the cause on "patch", the object unchanged', async () => {
    await admin.request({ method: 'POST', path: configmaps, body: configMap('patched') });
    const before = await resourceVersionOf(`${configmaps}/patched`);
    const patches: Array<[string, unknown, string]> = [
      ['application/merge-patch+json', { metadata: { finalizers: [1] } }, 'ObjectMeta.metadata.finalizers of type string'],
      ['application/merge-patch+json', { metadata: { ownerReferences: 'x' } }, 'ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference'],
      ['application/strategic-merge-patch+json', { metadata: { labels: { a: 1 } } }, 'ObjectMeta.metadata.labels of type string'],
      ['application/json-patch+json', [{ op: 'add', path: '/metadata/generateName', value: 1 }], 'ObjectMeta.metadata.generateName of type string'],
    ];
    for (const [contentType, patch, goField] of patches) {
      const answer = await send({ method: 'PATCH', path: `${configmaps}/patched`, body: Buffer.from(JSON.stringify(patch)), contentType });
      expect([contentType, answer.code, answer.reason, answer.fields]).toEqual([contentType, 422, 'Invalid', ['patch']]);
      expect(answer.message).toContain(goField);
    }
    expect(await resourceVersionOf(`${configmaps}/patched`)).toBe(before);
  });

  it('a server-side apply configuration: 400, whether it creates or updates', async () => {
    const apply = (name: string, metadata: Record<string, unknown>) =>
      send({ method: 'PATCH', path: `${configmaps}/${name}?fieldManager=test`, body: Buffer.from(JSON.stringify(configMap(name, metadata))), contentType: 'application/apply-patch+yaml' });
    const finalizers = await apply('applied', { finalizers: [1] });
    expect([finalizers.code, finalizers.reason]).toEqual([400, 'BadRequest']);
    expect(finalizers.message).toContain('ObjectMeta.metadata.finalizers of type string');
    // A null item of a keyed list fails to type: the configuration's error, so 400 (upstream answers 500).
    const nullReference = await apply('applied', { ownerReferences: [null] });
    expect([nullReference.code, nullReference.reason]).toEqual([400, 'BadRequest']);
    expect(nullReference.message).toContain('failed to create typed patch object');
    expect(await resourceVersionOf(`${configmaps}/applied`)).toBeUndefined();
  });
});

describe('members of the wrong type, before the defaults that would read them', () => {
  // A built-in is decoded into Go structs upstream: a member of the wrong type is its decoder's 400.
  it('a Namespace whose spec is a string: 400 on spec, not created', async () => {
    const answer = await send({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'spec-string' }, spec: 'x' } });
    expect([answer.code, answer.reason]).toEqual([400, 'BadRequest']);
    expect(answer.message).toBe('Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal string into Go struct field Namespace.spec of type v1.NamespaceSpec');
    expect(await resourceVersionOf('/api/v1/namespaces/spec-string')).toBeUndefined();
  });

  it('a Secret with a number in stringData: 400 on it, not created; stringData beside a null data is merged', async () => {
    const secrets = '/api/v1/namespaces/default/secrets';
    const answer = await send({ method: 'POST', path: secrets, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'string-data' }, stringData: { k: 1 } } });
    expect([answer.code, answer.reason]).toEqual([400, 'BadRequest']);
    expect(answer.message).toBe('Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.stringData of type string');
    expect(await resourceVersionOf(`${secrets}/string-data`)).toBeUndefined();
    const merged = await admin.request<{ data: Record<string, string>; stringData?: unknown }>({
      method: 'POST',
      path: secrets,
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'string-data' }, stringData: { k: 'v' }, data: null },
    });
    expect(merged.data).toEqual({ k: Buffer.from('v').toString('base64') });
    expect(merged.stringData).toBeUndefined();
  });
});

describe('access reviews', () => {
  it('a SubjectAccessReview with a selector of the wrong type: 400 as Go decodes it; a well-formed one is answered', async () => {
    const review = (labelSelector: unknown) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice', resourceAttributes: { verb: 'list', resource: 'configmaps', labelSelector } },
    });
    const path = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
    const wrong = await send({ method: 'POST', path, body: review({ rawSelector: 5 }) });
    expect([wrong.code, wrong.reason]).toEqual([400, 'BadRequest']);
    expect(wrong.message).toContain('json: cannot unmarshal number into Go struct field');
    expect(wrong.message).toContain('spec.resourceAttributes.labelSelector.rawSelector of type string');
    const right = await send({ method: 'POST', path, body: review({ requirements: [{ key: 'app', operator: 'In', values: ['web'] }] }) });
    expect(right.code).toBe(201);
  });
});

describe('objects without the spec their strategy reads', () => {
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

  it('a CustomResourceDefinition without a spec: 422 naming each required field, not created', async () => {
    const answer = await send({ method: 'POST', path: crds, body: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' } } });
    expect([answer.code, answer.reason]).toEqual([422, 'Invalid']);
    expect(answer.fields).toEqual(expect.arrayContaining(['spec.group', 'spec.names', 'spec.scope', 'spec.versions']));
    expect(await resourceVersionOf(`${crds}/things.example.com`)).toBeUndefined();
  });

  it('a CustomResourceDefinition patched to a string conversion: 422 on spec.conversion, its spec unchanged', async () => {
    const name = 'gadgets.example.com';
    await admin.request({
      method: 'POST',
      path: crds,
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'gadgets', kind: 'Gadget' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
        },
      },
    });
    // The CRD controller writes its status meanwhile: the spec (and its generation) is what must not change.
    const spec = async () => {
      const crd = await admin.request<{ metadata: { generation: number }; spec: { conversion?: unknown } }>({ method: 'GET', path: `${crds}/${name}` });
      return [crd.metadata.generation, crd.spec.conversion];
    };
    const before = await spec();
    expect(before).toEqual([1, { strategy: 'None' }]);
    const answer = await send({ method: 'PATCH', path: `${crds}/${name}`, body: Buffer.from('{"spec":{"conversion":"x"}}'), contentType: 'application/merge-patch+json' });
    expect([answer.code, answer.reason, answer.fields]).toEqual([422, 'Invalid', ['spec.conversion']]);
    expect(await spec()).toEqual(before);
  });

  it('a CustomResourceDefinition with a value of the wrong type in a version or its schema: 400 as Go decodes it; a null schema is empty', async () => {
    const crd = (name: string, version: Record<string, unknown>) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${name}.example.com` },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: name, kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true, ...version }] },
    });
    const objectSchema = (spec: Record<string, unknown>) => ({ schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } });
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['columns', { ...objectSchema({ type: 'object' }), additionalPrinterColumns: 'x' }, 'additionalPrinterColumns'],
      ['selectables', { ...objectSchema({ type: 'object' }), selectableFields: [null, 'x'] }, 'selectableFields'],
      ['messages', objectSchema({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true', message: ['x'] }] }), 'json: cannot unmarshal array into Go struct field ValidationRule.spec.versions.schema.openAPIV3Schema.properties.x-kubernetes-validations.message of type string'],
      ['types', objectSchema({ type: 5 }), 'json: cannot unmarshal number into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.type of type string'],
      ['required', objectSchema({ type: 'object', required: 'size' }), 'json: cannot unmarshal string into Go struct field JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties.required of type []string'],
    ];
    for (const [name, version, message] of cases) {
      const answer = await send({ method: 'POST', path: crds, body: crd(name, version) });
      expect([answer.code, answer.reason], name).toEqual([400, 'BadRequest']);
      expect(answer.message, name).toContain(message);
      expect(await resourceVersionOf(`${crds}/${name}.example.com`), name).toBeUndefined();
    }
    // A null property schema decodes to an empty one, which a structural schema refuses (it has no type).
    const nullProperty = await send({ method: 'POST', path: crds, body: crd('nulls', objectSchema({ type: 'object', properties: { size: null } })) });
    expect([nullProperty.code, nullProperty.fields]).toEqual([422, ['spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type']]);
  });

  it('an APIService without a spec: 422 (its priorities are zero), not created', async () => {
    const apiServices = '/apis/apiregistration.k8s.io/v1/apiservices';
    const answer = await send({ method: 'POST', path: apiServices, body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.things.example.com' } } });
    expect([answer.code, answer.reason]).toEqual([422, 'Invalid']);
    expect(answer.fields).toEqual(expect.arrayContaining(['spec.group', 'spec.version', 'spec.groupPriorityMinimum', 'spec.versionPriority']));
    expect(await resourceVersionOf(`${apiServices}/v1.things.example.com`)).toBeUndefined();
  });
});

describe('a URL that names nothing', () => {
  it('a watch prefix with nothing after it: 404 with upstream\'s text (upstream answers 500)', async () => {
    for (const path of ['/api/v1/watch', '/apis/apps/v1/watch']) {
      const answer = await send({ method: 'GET', path });
      expect([answer.code, answer.reason]).toEqual([404, 'NotFound']);
      expect(answer.message).toBe(`failed to create RequestInfo: unable to determine kind and namespace from url, ${path}`);
    }
  });
});

describe('JSON null, as Go decodes it', () => {
  it('kubectl apply --server-side of a manifest with empty labels, annotations and data (YAML nulls) succeeds', async () => {
    const manifest = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: empty-members', '  labels:', '  annotations:', 'data:', ''].join('\n');
    await kubectl(server, ['apply', '--server-side', '-f', '-'], manifest);
    // And again, as an update (the merged object holds the nulls too).
    await kubectl(server, ['apply', '--server-side', '-f', '-'], manifest);
    const object = JSON.parse(await kubectl(server, ['get', 'configmap', 'empty-members', '-o', 'json'])) as { metadata: Record<string, unknown>; data?: unknown };
    expect(object.metadata['labels']).toBeUndefined();
    expect(object.data).toBeUndefined();
  });

  it('a null member is left out, a null map value or list item is its zero value', async () => {
    const created = await admin.request<{ metadata: { labels?: Record<string, string>; finalizers?: string[] }; data?: unknown }>({
      method: 'POST',
      path: configmaps,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nulls', labels: { a: null }, finalizers: null, ownerReferences: null }, data: null },
    });
    expect(created.metadata.labels).toEqual({ a: '' });
    expect(created.metadata.finalizers).toBeUndefined();
    expect(created.data).toBeUndefined();
    // A null finalizer is the empty string, which is not a valid finalizer name.
    const answer = await send({ method: 'POST', path: configmaps, body: configMap('null-finalizer', { finalizers: [null] }) });
    expect([answer.code, [...new Set(answer.fields)]]).toEqual([422, ['metadata.finalizers[0]']]);
  });
});
