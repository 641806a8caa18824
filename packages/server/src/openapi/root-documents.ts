/**
 * The OpenAPI 3 documents of the `/openapi/v3` index entries that describe no resources, as upstream publishes
 * them (api/openapi-spec/v3): `api` (GET /api/, APIVersions), `apis` (GET /apis/, APIGroupList),
 * `apis/<group>` (GET /apis/<group>/, APIGroup), `version` (GET /version/, version.Info) and, for servers that
 * serve them, the service account issuer discovery documents.
 */
import { commonDescriptions, type JSONSchema } from './meta-definitions.js';
import { operationGroupName } from './openapi-paths.js';

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const names = {
  apiVersions: `${meta}.APIVersions`,
  apiGroupList: `${meta}.APIGroupList`,
  apiGroup: `${meta}.APIGroup`,
  groupVersionForDiscovery: `${meta}.GroupVersionForDiscovery`,
  serverAddressByClientCIDR: `${meta}.ServerAddressByClientCIDR`,
  apiResourceList: `${meta}.APIResourceList`,
  apiResource: `${meta}.APIResource`,
  versionInfo: 'io.k8s.apimachinery.pkg.version.Info',
} as const;

const ref = (name: string): string => `#/components/schemas/${name}`;
const refProperty = (name: string, extra: JSONSchema): JSONSchema => ({ allOf: [{ $ref: ref(name) }], ...extra });
const securitySchemes = { BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' } };
const serverAddressesDescription =
  'a map of client CIDR to server address that is serving this group. This is to help clients reach servers in the most network-efficient way possible. Clients can use the appropriate server address as per the CIDR that they match. In case of multiple matches, clients should use the longest matching CIDR. The server returns only those CIDRs that it thinks that the client can match. For example: the master will return an internal IP CIDR only, if the client reaches the server using an internal IP. Server looks at X-Forwarded-For header or X-Real-Ip header or request.RemoteAddr (in that order) to get the client IP.';

const serverAddressByClientCIDR: JSONSchema = {
  description: 'ServerAddressByClientCIDR helps the client to determine the server address that they should use, depending on the clientCIDR that they match.',
  type: 'object',
  required: ['clientCIDR', 'serverAddress'],
  properties: {
    clientCIDR: { type: 'string', default: '', description: 'The CIDR with which clients can match their IP to figure out the server address that they should use.' },
    serverAddress: { type: 'string', default: '', description: 'Address of this server, suitable for a client that matches the above CIDR. This can be a hostname, hostname:port, IP or IP:port.' },
  },
};

const serverAddresses: JSONSchema = { type: 'array', description: serverAddressesDescription, items: refProperty(names.serverAddressByClientCIDR, { default: {} }), 'x-kubernetes-list-type': 'atomic' };

const groupVersionForDiscovery: JSONSchema = {
  description: 'GroupVersion contains the "group/version" and "version" string of a version. It is made a struct to keep extensibility.',
  type: 'object',
  required: ['groupVersion', 'version'],
  properties: {
    groupVersion: { type: 'string', default: '', description: 'groupVersion specifies the API group and version in the form "group/version"' },
    version: { type: 'string', default: '', description: 'version specifies the version in the form of "version". This is to save the clients the trouble of splitting the GroupVersion.' },
  },
};

const apiGroup: JSONSchema = {
  description: 'APIGroup contains the name, the supported versions, and the preferred version of a group.',
  type: 'object',
  required: ['name', 'versions'],
  properties: {
    apiVersion: { type: 'string', description: commonDescriptions.apiVersion },
    kind: { type: 'string', description: commonDescriptions.kind },
    name: { type: 'string', default: '', description: 'name is the name of the group.' },
    preferredVersion: refProperty(names.groupVersionForDiscovery, { default: {}, description: 'preferredVersion is the version preferred by the API server, which probably is the storage version.' }),
    serverAddressByClientCIDRs: serverAddresses,
    versions: { type: 'array', description: 'versions are the versions supported in this group.', items: refProperty(names.groupVersionForDiscovery, { default: {} }), 'x-kubernetes-list-type': 'atomic' },
  },
  'x-kubernetes-group-version-kind': [{ group: '', kind: 'APIGroup', version: 'v1' }],
};

const apiVersions: JSONSchema = {
  description: 'APIVersions lists the versions that are available, to allow clients to discover the API at /api, which is the root path of the legacy v1 API.',
  type: 'object',
  required: ['versions', 'serverAddressByClientCIDRs'],
  properties: {
    apiVersion: { type: 'string', description: commonDescriptions.apiVersion },
    kind: { type: 'string', description: commonDescriptions.kind },
    serverAddressByClientCIDRs: serverAddresses,
    versions: { type: 'array', description: 'versions are the api versions that are available.', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' },
  },
  'x-kubernetes-group-version-kind': [{ group: '', kind: 'APIVersions', version: 'v1' }],
};

const apiGroupList: JSONSchema = {
  description: 'APIGroupList is a list of APIGroup, to allow clients to discover the API at /apis.',
  type: 'object',
  required: ['groups'],
  properties: {
    apiVersion: { type: 'string', description: commonDescriptions.apiVersion },
    groups: { type: 'array', description: 'groups is a list of APIGroup.', items: refProperty(names.apiGroup, { default: {} }), 'x-kubernetes-list-type': 'atomic' },
    kind: { type: 'string', description: commonDescriptions.kind },
  },
  'x-kubernetes-group-version-kind': [{ group: '', kind: 'APIGroupList', version: 'v1' }],
};

const strings = (description: string): JSONSchema => ({ type: 'array', description, items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'atomic' });
const apiResource: JSONSchema = {
  description: 'APIResource specifies the name of a resource and whether it is namespaced.',
  type: 'object',
  required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'],
  properties: {
    categories: strings("categories is a list of the grouped resources this resource belongs to (e.g. 'all')"),
    group: { type: 'string', description: 'group is the preferred group of the resource.  Empty implies the group of the containing resource list. For subresources, this may have a different value, for example: Scale".' },
    kind: { type: 'string', default: '', description: "kind is the kind for the resource (e.g. 'Foo' is the kind for a resource 'foo')" },
    name: { type: 'string', default: '', description: 'name is the plural name of the resource.' },
    namespaced: { type: 'boolean', default: false, description: 'namespaced indicates if a resource is namespaced or not.' },
    shortNames: strings('shortNames is a list of suggested short names of the resource.'),
    singularName: {
      type: 'string',
      default: '',
      description:
        'singularName is the singular name of the resource.  This allows clients to handle plural and singular opaquely. The singularName is more correct for reporting status on a single item and both singular and plural are allowed from the kubectl CLI interface.',
    },
    storageVersionHash: {
      type: 'string',
      description:
        'The hash value of the storage version, the version this resource is converted to when written to the data store. Value must be treated as opaque by clients. Only equality comparison on the value is valid. This is an alpha feature and may change or be removed in the future. The field is populated by the apiserver only if the StorageVersionHash feature gate is enabled. This field will remain optional even if it graduates.',
    },
    verbs: { type: 'array', description: 'verbs is a list of supported kube verbs (this includes get, list, watch, create, update, patch, delete, deletecollection, and proxy)', items: { type: 'string', default: '' } },
    version: {
      type: 'string',
      description:
        'version is the preferred version of the resource.  Empty implies the version of the containing resource list For subresources, this may have a different value, for example: v1 (while inside a v1beta1 version of the core resource\'s group)".',
    },
  },
};

const apiResourceList: JSONSchema = {
  description:
    'APIResourceList is a list of APIResource, it is used to expose the name of the resources supported in a specific group and version, and if the resource is namespaced.',
  type: 'object',
  required: ['groupVersion', 'resources'],
  properties: {
    apiVersion: { type: 'string', description: commonDescriptions.apiVersion },
    groupVersion: { type: 'string', default: '', description: 'groupVersion is the group and version this APIResourceList is for.' },
    kind: { type: 'string', description: commonDescriptions.kind },
    resources: { type: 'array', description: 'resources contains the name of the resources and if they are namespaced.', items: refProperty(names.apiResource, { default: {} }), 'x-kubernetes-list-type': 'atomic' },
  },
  'x-kubernetes-group-version-kind': [{ group: '', kind: 'APIResourceList', version: 'v1' }],
};

const versionString = (description?: string, optional = false): JSONSchema => ({ type: 'string', ...(optional ? {} : { default: '' }), ...(description ? { description } : {}) });
const versionInfo: JSONSchema = {
  description: "Info contains versioning information. how we'll want to distribute that information.",
  type: 'object',
  required: ['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'],
  properties: {
    buildDate: versionString(),
    compiler: versionString(),
    emulationMajor: versionString('EmulationMajor is the major version of the emulation version', true),
    emulationMinor: versionString('EmulationMinor is the minor version of the emulation version', true),
    gitCommit: versionString(),
    gitTreeState: versionString(),
    gitVersion: versionString(),
    goVersion: versionString(),
    major: versionString('Major is the major version of the binary version'),
    minCompatibilityMajor: versionString('MinCompatibilityMajor is the major version of the minimum compatibility version', true),
    minCompatibilityMinor: versionString('MinCompatibilityMinor is the minor version of the minimum compatibility version', true),
    minor: versionString('Minor is the minor version of the binary version'),
    platform: versionString(),
  },
};

/** Document info (`title`, `version`). */
export interface DocumentInfo {
  title: string;
  version: string;
}

interface GetOperation {
  path: string;
  operationId: string;
  description: string;
  tag: string;
  /** The schema of the 200 answer: a definition's name, or an inline schema. */
  schema: string | JSONSchema;
  mediaTypes: string[];
  unauthorized?: boolean;
}

const discoveryMediaTypes = ['application/json', 'application/vnd.kubernetes.protobuf', 'application/yaml'];

function document(info: DocumentInfo, operation: GetOperation, schemas: Record<string, JSONSchema>): JSONSchema {
  const schema = typeof operation.schema === 'string' ? { $ref: ref(operation.schema) } : operation.schema;
  const responses: JSONSchema = { '200': { description: 'OK', content: Object.fromEntries(operation.mediaTypes.map((type) => [type, { schema }])) } };
  if (operation.unauthorized !== false) responses['401'] = { description: 'Unauthorized' };
  const secured = Object.keys(schemas).length > 0;
  return {
    openapi: '3.0.0',
    info,
    paths: { [operation.path]: { get: { tags: [operation.tag], description: operation.description, operationId: operation.operationId, responses } } },
    components: secured ? { schemas: sortKeys(schemas), securitySchemes } : {},
  };
}

/** The root index entries for the served groups (non-core group names): `api`, `apis`, `apis/<group>`..., `version`. */
export function rootV3Paths(groups: readonly string[]): string[] {
  return ['api', 'apis', ...groups.filter((group) => group !== '').map((group) => `apis/${group}`), 'version'];
}

/**
 * The OpenAPI 3 document of a root index entry (see {@link rootV3Paths}), or undefined when `key` is none of
 * them or names a group not in `groups`.
 */
export function rootV3Document(key: string, groups: readonly string[], info: DocumentInfo): JSONSchema | undefined {
  const discovery = { mediaTypes: discoveryMediaTypes };
  const addresses = { [names.serverAddressByClientCIDR]: serverAddressByClientCIDR };
  const groupTypes = { [names.apiGroup]: apiGroup, [names.groupVersionForDiscovery]: groupVersionForDiscovery, ...addresses };
  if (key === 'api') {
    return document(info, { ...discovery, path: '/api/', operationId: 'getCoreAPIVersions', description: 'get available API versions', tag: 'core', schema: names.apiVersions }, { [names.apiVersions]: apiVersions, ...addresses });
  }
  if (key === 'apis') {
    return document(info, { ...discovery, path: '/apis/', operationId: 'getAPIVersions', description: 'get available API versions', tag: 'apis', schema: names.apiGroupList }, { ...groupTypes, [names.apiGroupList]: apiGroupList });
  }
  if (key === 'version') {
    return document(info, { path: '/version/', operationId: 'getCodeVersion', description: 'get the version information for this server', tag: 'version', schema: names.versionInfo, mediaTypes: ['application/json'] }, { [names.versionInfo]: versionInfo });
  }
  const group = /^apis\/([^/]+)$/.exec(key)?.[1];
  if (group === undefined || !groups.includes(group)) return undefined;
  const groupName = operationGroupName(group);
  const tag = groupName.charAt(0).toLowerCase() + groupName.slice(1);
  return document(info, { ...discovery, path: `/apis/${group}/`, operationId: `get${groupName}APIGroup`, description: 'get information of a group', tag, schema: names.apiGroup }, groupTypes);
}

/**
 * The discovery operation of a group-version (GET /api/v1/ `getCoreV1APIResources`, GET /apis/<g>/<v>/
 * `get<Group><Version>APIResources`, an APIResourceList), with the schemas it uses, for that group-version's
 * OpenAPI 3 document.
 */
export function groupVersionDiscovery(group: string, version: string, tag: string): { paths: Record<string, JSONSchema>; schemas: Record<string, JSONSchema> } {
  const path = group === '' ? `/api/${version}/` : `/apis/${group}/${version}/`;
  const operationId = `get${operationGroupName(group)}${version.charAt(0).toUpperCase()}${version.slice(1)}APIResources`;
  const documentOf = document(
    { title: '', version: '' },
    { path, operationId, description: 'get available resources', tag, schema: names.apiResourceList, mediaTypes: discoveryMediaTypes },
    { [names.apiResourceList]: apiResourceList, [names.apiResource]: apiResource },
  );
  return { paths: documentOf['paths'] as Record<string, JSONSchema>, schemas: { [names.apiResourceList]: apiResourceList, [names.apiResource]: apiResource } };
}

/**
 * The Swagger 2.0 paths and definitions of an OpenAPI 3 document of GET operations (the root documents, a
 * group-version's discovery, the issuer discovery documents), as upstream's `/openapi/v2` carries them.
 */
export function swaggerPartOf(v3: JSONSchema): { paths: Record<string, JSONSchema>; definitions: Record<string, JSONSchema> } {
  const toV2 = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/definitions/')) as T;
  const paths: Record<string, JSONSchema> = {};
  for (const [path, item] of Object.entries((v3['paths'] ?? {}) as Record<string, { get: JSONSchema }>)) {
    const { tags, description, operationId, responses } = item.get as { tags: string[]; description: string; operationId: string; responses: Record<string, JSONSchema> };
    const content = (responses['200']?.['content'] ?? {}) as Record<string, { schema?: JSONSchema }>;
    const produces = Object.keys(content);
    const schema = Object.values(content)[0]?.schema;
    paths[path] = {
      get: {
        consumes: produces,
        description,
        operationId,
        produces,
        responses: { '200': { description: 'OK', ...(schema ? { schema: toV2(schema) } : {}) }, ...(responses['401'] ? { '401': { description: 'Unauthorized' } } : {}) },
        schemes: ['https'],
        tags,
      },
    };
  }
  const schemas = ((v3['components'] as { schemas?: Record<string, JSONSchema> } | undefined)?.schemas ?? {});
  return { paths, definitions: toV2(schemas) };
}

/**
 * The documents of the service account issuer discovery endpoints (`.well-known/openid-configuration`,
 * `openid/v1/jwks`), as upstream publishes them, keyed by index path: for a server that serves them to pass
 * as `extraV3Documents`.
 */
export function serviceAccountIssuerDiscoveryDocuments(info: DocumentInfo = { title: 'Kubernetes', version: 'unversioned' }): Record<string, JSONSchema> {
  const common = { schema: { type: 'string' }, unauthorized: false };
  return {
    '.well-known/openid-configuration': document(
      info,
      { ...common, path: '/.well-known/openid-configuration/', operationId: 'getServiceAccountIssuerOpenIDConfiguration', description: "get service account issuer OpenID configuration, also known as the 'OIDC discovery doc'", tag: 'WellKnown', mediaTypes: ['application/json'] },
      {},
    ),
    'openid/v1/jwks': document(
      info,
      { ...common, path: '/openid/v1/jwks/', operationId: 'getServiceAccountIssuerOpenIDKeyset', description: 'get service account issuer OpenID JSON Web Key Set (contains public token verification keys)', tag: 'openid', mediaTypes: ['application/jwk-set+json'] },
      {},
    ),
  };
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
