import { describe, expect, it } from 'vitest';
import { sampleResources } from '../discovery/test-resources.js';
import { startTestServer } from '../discovery/test-server.js';
import { createOpenAPIHandler } from './openapi-handler.js';
import { serviceAccountIssuerDiscoveryDocuments } from './root-documents.js';
import { serveOpenAPI, type Doc } from './test-openapi-server.js';

describe('root entries of /openapi/v3', () => {
  const served = serveOpenAPI({ resources: sampleResources, schemaFor: () => undefined });

  async function index(): Promise<Record<string, { serverRelativeURL: string }>> {
    return (JSON.parse((await served.server().get('/openapi/v3')).text) as Doc).paths as Record<string, { serverRelativeURL: string }>;
  }

  /** Fetches an index entry by its hashed URL, checking the immutable caching upstream gives it. */
  async function entry(key: string): Promise<Doc> {
    const url = (await index())[key]?.serverRelativeURL;
    expect(url, key).toMatch(new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`));
    const result = await served.server().get(url!);
    expect(result.status, key).toBe(200);
    expect(result.headers.get('cache-control')).toBe('public, immutable, max-age=31536000');
    expect(result.headers.get('etag')).toBe(`"${url!.split('hash=')[1]}"`);
    const doc = JSON.parse(result.text) as Doc;
    expect(doc.openapi).toBe('3.0.0');
    return doc;
  }

  it('lists api, apis, apis/<group> for every served group and version, like upstream', async () => {
    const keys = Object.keys(await index());
    expect(keys).toEqual(expect.arrayContaining(['api', 'apis', 'apis/apps', 'apis/example.com', 'version']));
    expect(keys).not.toContain('apis/');
    expect(keys).toEqual([...keys].sort());
  });

  it('describes GET /api/ (getCoreAPIVersions, APIVersions)', async () => {
    const doc = await entry('api');
    expect(Object.keys(doc.paths)).toEqual(['/api/']);
    const get = doc.paths['/api/'].get;
    expect(get).toMatchObject({ operationId: 'getCoreAPIVersions', description: 'get available API versions', tags: ['core'] });
    const ref = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions';
    expect(Object.keys(get.responses['200'].content)).toEqual(['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml']);
    expect(get.responses['200'].content['application/json'].schema.$ref).toBe(ref);
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas)).toEqual(['io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions', 'io.k8s.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR']);
    expect(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'APIVersions', version: 'v1' }]);
    expect(doc.components.securitySchemes.BearerToken.type).toBe('apiKey');
  });

  it('describes GET /apis/ (getAPIVersions, APIGroupList)', async () => {
    const doc = await entry('apis');
    const get = doc.paths['/apis/'].get;
    expect(get).toMatchObject({ operationId: 'getAPIVersions', tags: ['apis'] });
    expect(get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList');
    expect(Object.keys(doc.components.schemas)).toEqual([
      'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup',
      'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList',
      'io.k8s.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR',
    ]);
  });

  it('describes GET /apis/<group>/ (get<Group>APIGroup, APIGroup) for each served group', async () => {
    const apps = await entry('apis/apps');
    expect(Object.keys(apps.paths)).toEqual(['/apis/apps/']);
    expect(apps.paths['/apis/apps/'].get).toMatchObject({ operationId: 'getAppsAPIGroup', description: 'get information of a group', tags: ['apps'] });
    expect(apps.paths['/apis/apps/'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup');
    const example = await entry('apis/example.com');
    expect(example.paths['/apis/example.com/'].get).toMatchObject({ operationId: 'getExampleComAPIGroup', tags: ['exampleCom'] });
    expect((await served.server().get('/openapi/v3/apis/nope.example.com')).status).toBe(404);
  });

  it('describes GET /version/ (getCodeVersion, version.Info)', async () => {
    const doc = await entry('version');
    const get = doc.paths['/version/'].get;
    expect(get).toMatchObject({ operationId: 'getCodeVersion', description: 'get the version information for this server', tags: ['version'] });
    expect(Object.keys(get.responses['200'].content)).toEqual(['application/json']);
    const info = doc.components.schemas['io.k8s.apimachinery.pkg.version.Info'];
    expect(info.required).toEqual(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
    expect(info.properties.emulationMajor).toEqual({ type: 'string', description: 'EmulationMajor is the major version of the emulation version' });
  });

  it('caches them like the group-version documents: ETag, 304, no-cache without a hash, redirect on a stale hash', async () => {
    for (const key of ['api', 'apis', 'apis/apps', 'version']) {
      const first = await served.server().get(`/openapi/v3/${key}`);
      expect(first.status, key).toBe(200);
      expect(first.headers.get('cache-control')).toBe('no-cache, private');
      expect(first.headers.get('content-type')).toBe('application/json');
      const etag = first.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
      expect((await served.server().get(`/openapi/v3/${key}/`)).headers.get('etag')).toBe(etag);
      expect((await served.server().get(`/openapi/v3/${key}`, { 'If-None-Match': etag })).status).toBe(304);
      const stale = await fetch(`${served.server().url}/openapi/v3/${key}?hash=0123`, { redirect: 'manual' });
      expect(stale.status).toBe(301);
      expect(stale.headers.get('location')).toBe(`/openapi/v3/${key}?hash=${etag.slice(1, -1)}`);
    }
  });
});

describe('extra root documents (service account issuer discovery)', () => {
  it('lists and serves them with hashes, as upstream lists .well-known/openid-configuration and openid/v1/jwks', async () => {
    const server = await startTestServer(
      createOpenAPIHandler({ resources: sampleResources, schemaFor: () => undefined, extraV3Documents: () => serviceAccountIssuerDiscoveryDocuments() }),
    );
    try {
      const paths = (JSON.parse((await server.get('/openapi/v3')).text) as Doc).paths as Record<string, { serverRelativeURL: string }>;
      expect(Object.keys(paths)[0]).toBe('.well-known/openid-configuration');
      expect(paths['openid/v1/jwks']?.serverRelativeURL).toMatch(/^\/openapi\/v3\/openid\/v1\/jwks\?hash=[0-9A-F]{128}$/);
      const jwks = JSON.parse((await server.get(paths['openid/v1/jwks']!.serverRelativeURL)).text) as Doc;
      expect(jwks.paths['/openid/v1/jwks/'].get.operationId).toBe('getServiceAccountIssuerOpenIDKeyset');
      expect(Object.keys(jwks.paths['/openid/v1/jwks/'].get.responses['200'].content)).toEqual(['application/jwk-set+json']);
      const oidc = JSON.parse((await server.get('/openapi/v3/.well-known/openid-configuration')).text) as Doc;
      expect(oidc.paths['/.well-known/openid-configuration/'].get.operationId).toBe('getServiceAccountIssuerOpenIDConfiguration');
      expect(oidc.components).toEqual({});
      // A key of Object.prototype is no document.
      expect((await server.get('/openapi/v3/constructor')).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
