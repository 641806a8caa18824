import { describe, expect, it } from 'vitest';
import type { GroupVersionKind } from '@kapi/apimachinery';
import type { InstalledResource } from '../discovery/discovery-documents.js';
import { sampleResources } from '../discovery/test-resources.js';
import type { JSONSchema } from './meta-definitions.js';
import { buildOpenAPIV2, type OpenAPIOptions } from './openapi-handler.js';
import { OPENAPI_V2_PROTOBUF_CONTENT_TYPE } from './openapi-v2-protobuf.js';
import { sampleScheme } from './test-scheme.js';
import { serveOpenAPI, type Doc } from './test-openapi-server.js';

const tokenRequest = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
const tokenPath = '/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token';

/** The sample resources plus kube-apiserver's ServiceAccounts (TokenRequest served by a filter) and Pods (an eviction). */
function resourcesWithSubresources(): InstalledResource[] {
  return [
    ...sampleResources(),
    {
      definition: {
        group: '',
        resource: 'serviceaccounts',
        kind: 'ServiceAccount',
        namespaced: true,
        versions: ['v1'],
        subresources: { servedElsewhere: [{ name: 'token', kind: tokenRequest, verbs: ['create'] }] },
      },
    },
    {
      definition: {
        group: '',
        resource: 'pods',
        kind: 'Pod',
        namespaced: true,
        versions: ['v1'],
        subresources: { servedElsewhere: [{ name: 'eviction', kind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] }] },
      },
    },
  ];
}

describe('subresources served elsewhere in the OpenAPI documents', () => {
  const scheme = sampleScheme();
  const options: OpenAPIOptions = {
    resources: resourcesWithSubresources,
    // The scheme knows neither TokenRequest nor Eviction (it throws for them, as Scheme.openAPISchema does).
    schemaFor: (gvk: GroupVersionKind) => scheme.openAPISchema(gvk) as JSONSchema,
  };
  const { server, json } = serveOpenAPI(options);

  it('lists POST serviceaccounts/{name}/token in /openapi/v2 as upstream, with the TokenRequest definition', async () => {
    const doc = await json('/openapi/v2');
    const item = doc.paths[tokenPath];
    expect(Object.keys(item).sort()).toEqual(['parameters', 'post']);
    expect(item.post).toMatchObject({
      operationId: 'createCoreV1NamespacedServiceAccountToken',
      description: 'create token of a ServiceAccount',
      tags: ['core_v1'],
      consumes: ['application/json'],
      'x-kubernetes-action': 'post',
      'x-kubernetes-group-version-kind': { group: 'authentication.k8s.io', kind: 'TokenRequest', version: 'v1' },
    });
    const ref = { $ref: '#/definitions/io.k8s.api.authentication.v1.TokenRequest' };
    expect(item.post.parameters[0]).toEqual({ name: 'body', in: 'body', required: true, schema: ref });
    expect(item.post.parameters.slice(1).map((parameter: Doc) => parameter.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
    for (const code of ['200', '201', '202']) expect(item.post.responses[code].schema).toEqual(ref);
    expect(item.parameters.map((parameter: Doc) => [parameter.name, parameter.description])).toEqual([
      ['name', 'name of the TokenRequest'],
      ['namespace', 'object name and auth scope, such as for teams and projects'],
      ['pretty', "If 'true', then the output is pretty printed."],
    ]);

    const definition = doc.definitions['io.k8s.api.authentication.v1.TokenRequest'];
    expect(definition['x-kubernetes-group-version-kind']).toEqual([{ group: 'authentication.k8s.io', kind: 'TokenRequest', version: 'v1' }]);
    expect(definition.required).toEqual(['spec']);
    expect(definition.properties.spec.$ref).toBe('#/definitions/io.k8s.api.authentication.v1.TokenRequestSpec');
    expect(doc.definitions['io.k8s.api.authentication.v1.TokenRequestSpec'].properties.audiences.type).toBe('array');
    expect(doc.definitions['io.k8s.api.authentication.v1.TokenRequestStatus'].properties.expirationTimestamp.$ref).toBe(
      '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time',
    );
    expect(doc.definitions['io.k8s.api.authentication.v1.BoundObjectReference']).toBeDefined();
    // The parent keeps its own paths and definition.
    expect(doc.paths['/api/v1/namespaces/{namespace}/serviceaccounts/{name}'].get.operationId).toBe('readCoreV1NamespacedServiceAccount');
    expect(doc.definitions['io.k8s.api.core.v1.ServiceAccount']['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'ServiceAccount' }]);
  });

  it('lists it in /openapi/v3/api/v1 with OpenAPI 3 request and response bodies', async () => {
    const doc = await json('/openapi/v3/api/v1');
    const post = doc.paths[tokenPath].post;
    expect(post.operationId).toBe('createCoreV1NamespacedServiceAccountToken');
    expect(post['x-kubernetes-action']).toBe('post');
    expect(post['x-kubernetes-group-version-kind']).toEqual({ group: 'authentication.k8s.io', kind: 'TokenRequest', version: 'v1' });
    const ref = '#/components/schemas/io.k8s.api.authentication.v1.TokenRequest';
    expect(post.requestBody).toEqual({ content: { 'application/json': { schema: { $ref: ref } } }, required: true });
    expect(post.responses['201'].content['application/json'].schema.$ref).toBe(ref);
    const schemas = doc.components.schemas;
    expect(schemas['io.k8s.api.authentication.v1.TokenRequest'].properties.spec).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.api.authentication.v1.TokenRequestSpec' }],
      default: {},
      description: 'Spec holds information about the request being evaluated',
    });
    expect(schemas['io.k8s.api.authentication.v1.TokenRequestStatus'].required).toEqual(['token', 'expirationTimestamp']);
    // Not in the other group-versions' documents.
    expect((await json('/openapi/v3/apis/apps/v1')).components.schemas['io.k8s.api.authentication.v1.TokenRequest']).toBeUndefined();
  });

  it('gives any such subresource a path, with a permissive schema for a kind the scheme does not know', async () => {
    const doc = await json('/openapi/v3/api/v1');
    const post = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction'].post;
    expect(post.operationId).toBe('createCoreV1NamespacedPodEviction');
    expect(post.description).toBe('create eviction of a Pod');
    expect(post['x-kubernetes-group-version-kind']).toEqual({ group: 'policy', kind: 'Eviction', version: 'v1' });
    expect(post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/io.k8s.api.policy.v1.Eviction');
    expect(doc.components.schemas['io.k8s.api.policy.v1.Eviction']).toMatchObject({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-group-version-kind': [{ group: 'policy', version: 'v1', kind: 'Eviction' }],
    });
  });

  it('encodes the v2 document with them as gnostic protobuf', async () => {
    const result = await server().get('/openapi/v2', { Accept: OPENAPI_V2_PROTOBUF_CONTENT_TYPE });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe(OPENAPI_V2_PROTOBUF_CONTENT_TYPE);
  });
});

describe('subresource kinds the scheme registers', () => {
  it('uses the scheme schema of the subresource kind', () => {
    const doc = buildOpenAPIV2({
      resources: resourcesWithSubresources,
      schemaFor: (gvk) => (gvk.kind === 'TokenRequest' ? { type: 'object', description: 'from the scheme', properties: { spec: { type: 'object' } } } : undefined),
    }) as Doc;
    const definition = doc.definitions['io.k8s.api.authentication.v1.TokenRequest'];
    expect(definition.description).toBe('from the scheme');
    expect(definition.properties.metadata.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(doc.definitions['io.k8s.api.authentication.v1.TokenRequestSpec']).toBeUndefined();
  });
});
