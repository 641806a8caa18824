import { describe, expect, it } from 'vitest';
import type { GroupVersionKind } from '@kapi/apimachinery';
import { sampleResources } from '../discovery/test-resources.js';
import { startTestServer } from '../discovery/test-server.js';
import type { JSONSchema } from './meta-definitions.js';
import { createOpenAPIHandler, type OpenAPIOptions, type OpenAPIV2Part } from './openapi-handler.js';
import { defaultDefinitionName, normalizeSchema } from './openapi-schemas.js';
import { sampleScheme } from './test-scheme.js';
import { serveOpenAPI, type Doc } from './test-openapi-server.js';

describe('OpenAPI over HTTP', () => {
  const resources = sampleResources();
  const scheme = sampleScheme();
  const options: OpenAPIOptions = {
    resources: () => resources,
    schemaFor: (gvk: GroupVersionKind) => scheme.openAPISchema(gvk) as JSONSchema,
  };
  const served = serveOpenAPI(options);
  const json = served.json;

  it('serves Swagger 2.0 with upstream-named definitions and GVK extensions', async () => {
    const doc = await json('/openapi/v2');
    expect(doc.swagger).toBe('2.0');
    const configMap = doc.definitions['io.k8s.api.core.v1.ConfigMap'];
    expect(configMap['x-kubernetes-group-version-kind']).toEqual([{ group: '', version: 'v1', kind: 'ConfigMap' }]);
    expect(configMap.properties.metadata.$ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(configMap.properties.data).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(configMap.properties.data.patternProperties).toBeUndefined();
    expect(doc.definitions['io.k8s.api.core.v1.ConfigMapList'].properties.items.items.$ref).toBe('#/definitions/io.k8s.api.core.v1.ConfigMap');
    expect(doc.definitions['io.k8s.api.apps.v1.Deployment']).toBeDefined();
    expect(doc.definitions['com.example.v1.Widget']['x-kubernetes-group-version-kind']).toEqual([{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
    expect(doc.definitions['com.example.v1beta1.Widget']).toBeDefined();
    expect(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.labels).toBeDefined();
    expect(JSON.stringify(doc)).not.toMatch(/"nullable"/);

    const item = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
    expect(item.get['x-kubernetes-action']).toBe('get');
    expect(item.get['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(item.get.operationId).toBe('readCoreV1NamespacedConfigMap');
    expect(item.put.parameters[0]).toMatchObject({ name: 'body', in: 'body', schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } });
    expect(item.patch.consumes).toContain('application/strategic-merge-patch+json');
    expect(item.parameters.map((parameter: Doc) => parameter.name)).toEqual(['name', 'namespace', 'pretty']);
    expect(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].get.operationId).toBe('listAppsV1NamespacedDeployment');
    expect(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].delete['x-kubernetes-action']).toBe('deletecollection');
    expect(doc.paths['/apis/apps/v1/deployments'].get.operationId).toBe('listAppsV1DeploymentForAllNamespaces');
    expect(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status'].patch['x-kubernetes-action']).toBe('patch');
    expect(doc.paths['/api/v1/namespaces/{name}'].get['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Namespace' });
    expect(doc.paths['/api/v1/namespaces'].delete).toBeUndefined();
    expect(doc.paths['/api/v1/watch/namespaces/{name}'].get['x-kubernetes-action']).toBe('watch');
    expect(doc.paths['/apis/example.com/v1beta1/namespaces/{namespace}/widgets'].post.operationId).toBe('createExampleComV1beta1NamespacedWidget');
  });

  it('serves the v3 index with hashed URLs', async () => {
    const index = await json('/openapi/v3');
    // Sorted as upstream's, with its root entries (documents of /api/, /apis/, /apis/<group>/, /version/).
    expect(Object.keys(index.paths)).toEqual(['api', 'api/v1', 'apis', 'apis/apps', 'apis/apps/v1', 'apis/example.com', 'apis/example.com/v1', 'apis/example.com/v1beta1', 'version']);
    expect(index.paths['apis/apps/v1'].serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
  });

  it('serves per group-version OpenAPI 3 documents with meta types referenced', async () => {
    const index = await json('/openapi/v3');
    const url = index.paths['apis/example.com/v1'].serverRelativeURL as string;
    const result = await served.server().get(url);
    expect(result.headers.get('cache-control')).toContain('immutable');
    const doc = JSON.parse(result.text) as Doc;
    expect(doc.openapi).toBe('3.0.0');
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['com.example.v1.Widget', 'com.example.v1.WidgetList', 'com.example.v1.Gadget', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status']));
    expect(schemas['com.example.v1beta1.Widget']).toBeUndefined();
    expect(schemas['io.k8s.api.core.v1.ConfigMap']).toBeUndefined();
    const widget = schemas['com.example.v1.Widget'];
    expect(widget.description).toBe('Widget is a thing that does stuff.');
    expect(widget.properties.metadata).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      default: {},
      description: expect.stringContaining("Standard object's metadata"),
    });
    expect(widget.properties.spec.properties.color).toMatchObject({ description: 'Paint colour.', anyOf: [{ enum: ['red'] }, { enum: ['blue'] }] });
    expect(widget.properties.spec.required).toEqual(['replicas']);

    const patch = doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'example.com', version: 'v1', kind: 'Widget' });
    expect(patch.parameters).toContainEqual(expect.objectContaining({ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } }));
    expect(Object.keys(patch.requestBody.content)).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(patch.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/com.example.v1.Widget');
    expect(Object.keys(doc.paths).every((path) => path.startsWith('/apis/example.com/v1/'))).toBe(true);

    const core = await json('/openapi/v3/api/v1');
    expect(core.components.schemas['io.k8s.api.core.v1.Namespace'].properties.status.properties.phase.type).toBe('string');
  });

  it('redirects outdated hashes, answers 304 for a known ETag, 404 for unknown group-versions', async () => {
    const stale = await fetch(`${served.server().url}/openapi/v3/apis/apps/v1?hash=ABC`, { redirect: 'manual' });
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
    const first = await served.server().get('/openapi/v3/apis/apps/v1');
    expect(first.headers.get('cache-control')).toBe('no-cache, private');
    const again = await served.server().get('/openapi/v3/apis/apps/v1', { 'If-None-Match': first.headers.get('etag') ?? '' });
    expect(again.status).toBe(304);
    expect((await served.server().get('/openapi/v3/apis/nope/v1')).status).toBe(404);
    // The gnostic protobuf form is served for v2 only.
    expect((await served.server().get('/openapi/v3/apis/apps/v1', { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' })).status).toBe(406);
    expect((await served.server().get('/openapi/v2', { Accept: 'application/xml' })).status).toBe(406);
  });

  it('reflects newly installed resources in the index and documents', async () => {
    const before = await json('/openapi/v3');
    resources.push({ definition: { group: 'example.com', resource: 'things', kind: 'Thing', namespaced: false, versions: ['v1'], verbs: ['get', 'list'] } });
    try {
      const after = await json('/openapi/v3');
      expect(after.paths['apis/example.com/v1'].serverRelativeURL).not.toBe(before.paths['apis/example.com/v1'].serverRelativeURL);
      const doc = await json('/openapi/v3/apis/example.com/v1');
      expect(doc.components.schemas['com.example.v1.Thing']).toMatchObject({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
      expect(doc.paths['/apis/example.com/v1/things/{name}'].get).toBeDefined();
      expect(doc.paths['/apis/example.com/v1/things/{name}'].patch).toBeUndefined();
    } finally {
      resources.pop();
    }
  });
});

describe('definition names and schema normalisation', () => {
  it('names built-in groups like upstream and others by reversed group', () => {
    expect(defaultDefinitionName({ group: '', version: 'v1', kind: 'Pod' })).toBe('io.k8s.api.core.v1.Pod');
    expect(defaultDefinitionName({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' })).toBe('io.k8s.api.rbac.v1.Role');
    expect(defaultDefinitionName({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' })).toBe('io.k8s.api.coordination.v1.Lease');
    expect(defaultDefinitionName({ group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' })).toBe(
      'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition',
    );
    expect(defaultDefinitionName({ group: 'stable.example.com', version: 'v1', kind: 'CronTab' })).toBe('com.example.stable.v1.CronTab');
  });

  it('turns nullable unions and constants into OpenAPI forms', () => {
    expect(normalizeSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] }, 'v3')).toEqual({ type: 'string', nullable: true });
    expect(normalizeSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] }, 'v2')).toEqual({ type: 'string' });
    expect(normalizeSchema({ const: 'x', $id: 'T' }, 'v3')).toEqual({ enum: ['x'] });
  });

  it('lets callers name definitions', async () => {
    const { buildOpenAPIV2 } = await import('./openapi-handler.js');
    const doc = buildOpenAPIV2({
      resources: sampleResources,
      schemaFor: () => undefined,
      definitionName: (gvk) => (gvk.group === 'example.com' ? `io.example.${gvk.version}.${gvk.kind}` : undefined),
      strategicMergePatch: (definition) => definition.group !== 'example.com',
    }) as Doc;
    expect(doc.definitions['io.example.v1.Widget']).toBeDefined();
    expect(doc.definitions['io.k8s.api.apps.v1.Deployment']).toBeDefined();
    expect(doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch.consumes).not.toContain('application/strategic-merge-patch+json');
  });
});

describe('OpenAPI caching', () => {
  it('rebuilds documents when a schema changes', async () => {
    let description = 'first';
    const server = await startTestServer(
      createOpenAPIHandler({
        resources: sampleResources,
        schemaFor: (gvk) => (gvk.kind === 'Gadget' ? { type: 'object', description } : undefined),
      }),
    );
    try {
      const read = async () => JSON.parse((await server.get('/openapi/v3/apis/example.com/v1')).text) as Doc;
      expect((await read()).components.schemas['com.example.v1.Gadget'].description).toBe('first');
      description = 'second';
      expect((await read()).components.schemas['com.example.v1.Gadget'].description).toBe('second');
    } finally {
      await server.close();
    }
  });
});

describe('OpenAPI v2 with parts served elsewhere (an aggregator)', () => {
  it('merges them, keeps its own definitions on a conflict and serves a new document when a part changes', async () => {
    const scheme = sampleScheme();
    let parts: OpenAPIV2Part[] = [];
    const server = await startTestServer(
      createOpenAPIHandler({
        resources: () => sampleResources(),
        schemaFor: (gvk: GroupVersionKind) => scheme.openAPISchema(gvk) as JSONSchema,
        extraV2: () => parts,
      }),
    );
    try {
      const before = await server.get('/openapi/v2');
      parts = [
        {
          key: 'wardle-1',
          paths: { '/apis/wardle.example.com/v1alpha1/flunders': { get: { operationId: 'listWardleV1alpha1Flunder' } } },
          definitions: {
            'com.example.wardle.v1alpha1.Flunder': { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'wardle.example.com', version: 'v1alpha1', kind: 'Flunder' }] },
            'io.k8s.api.core.v1.ConfigMap': { type: 'string' },
          },
        },
      ];
      const after = await server.get('/openapi/v2');
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      const doc = JSON.parse(after.text) as Doc;
      expect(doc.paths['/apis/wardle.example.com/v1alpha1/flunders'].get.operationId).toBe('listWardleV1alpha1Flunder');
      expect(doc.definitions['com.example.wardle.v1alpha1.Flunder'].type).toBe('object');
      expect(doc.definitions['io.k8s.api.core.v1.ConfigMap'].type).toBe('object');
      parts = [];
      expect((await server.get('/openapi/v2')).text).toBe(before.text);
    } finally {
      await server.close();
    }
  });
});
