import type { InstalledResource } from '../discovery/discovery-documents.js';
import { servedVerbs } from '../discovery/discovery-documents.js';
import { metaNames, type JSONSchema } from './meta-definitions.js';
import { definitionAt } from '../resource-definition.js';
import { refFor, type OpenAPIFlavour } from './openapi-schemas.js';
import { scaleDefinitionName, scaleGroupVersionKind } from './scale-definitions.js';
import { externalSubresources } from './subresource-definitions.js';

interface Parameter {
  name: string;
  in: 'path' | 'query';
  description: string;
  type: 'string' | 'integer' | 'boolean';
  required?: boolean;
}

interface Operation {
  method: 'get' | 'put' | 'post' | 'patch' | 'delete';
  action: string;
  operationId: string;
  description: string;
  parameters: Parameter[];
  /** Definition name of the request body, if any; `patch` uses the Patch type. */
  body?: string;
  consumes?: string[];
  responses: Record<string, string | undefined>;
  /** `x-kubernetes-group-version-kind` when it is not the resource's (autoscaling/v1 Scale, a TokenRequest). */
  groupVersionKind?: JSONSchema;
}

const query = (name: string, type: Parameter['type'], description: string): Parameter => ({ name, in: 'query', description, type });

const parameters = {
  pretty: query('pretty', 'string', "If 'true', then the output is pretty printed."),
  dryRun: query('dryRun', 'string', 'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed'),
  fieldManager: query('fieldManager', 'string', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict',
  ),
  force: query('force', 'boolean', 'Force is going to "force" Apply requests. It must be unset for non-apply patch requests.'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted.'),
  propagationPolicy: query('propagationPolicy', 'string', "Whether and how garbage collection will be performed: 'Orphan', 'Background', 'Foreground'."),
  list: [
    query('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'),
    query('continue', 'string', 'The continue option should be set when retrieving more results from the server.'),
    query('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'),
    query('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'),
    query('limit', 'integer', 'limit is a maximum number of responses to return for a list call.'),
    query('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'),
    query('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'),
    query('sendInitialEvents', 'boolean', '`sendInitialEvents=true` may be set together with `watch=true`.'),
    query('timeoutSeconds', 'integer', 'Timeout for the list/watch call.'),
    query('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'),
  ],
};

const patchTypes = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** `Core`, `Apps`, `RbacAuthorization`, `ExampleCom`: the group part of upstream operation ids. */
export function operationGroupName(group: string): string {
  if (group === '') return 'Core';
  return group
    .replace(/\.k8s\.io$/, '')
    .split(/[.-]/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** The tag of a group-version's operations (`core_v1`, `coordination_v1`). */
export function operationTag(group: string, version: string): string {
  return `${group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').replace(/[.-]/g, '')}_${version}`;
}

function capitalize(text: string): string {
  return text ? text[0]!.toUpperCase() + text.slice(1) : text;
}

/** Options of {@link resourcePaths}. */
export interface ResourcePathOptions {
  flavour: OpenAPIFlavour;
  definitionName: (gvk: { group: string; version: string; kind: string }) => string;
  /** Whether PATCH lists `application/strategic-merge-patch+json` (kubectl then sends strategic merge patches). */
  strategicMergePatch: boolean;
}

/**
 * The paths of one resource at one version, with `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind` on every operation as upstream writes them.
 */
export function resourcePaths(installed: InstalledResource, version: string, options: ResourcePathOptions): Record<string, JSONSchema> {
  const { definition } = installed;
  const verbs = new Set(servedVerbs(definition));
  const gvk = { group: definition.group, version, kind: definition.kind };
  const kindName = options.definitionName(gvk);
  const listName = options.definitionName({ ...gvk, kind: definition.listKind ?? `${definition.kind}List` });
  const prefix = definition.group === '' ? `/api/${version}` : `/apis/${definition.group}/${version}`;
  const id = `${operationGroupName(definition.group)}${capitalize(version)}`;
  const scoped = definition.namespaced ? 'Namespaced' : '';
  const scopePath = definition.namespaced ? '/namespaces/{namespace}' : '';
  const collectionPath = `${prefix}${scopePath}/${definition.resource}`;
  const itemPath = `${collectionPath}/{name}`;
  const namespaceParameter: Parameter = { name: 'namespace', in: 'path', description: 'object name and auth scope, such as for teams and projects', type: 'string', required: true };
  const nameParameter: Parameter = { name: 'name', in: 'path', description: `name of the ${definition.kind}`, type: 'string', required: true };
  const scopeParameters = definition.namespaced ? [namespaceParameter] : [];
  const writeParameters = [parameters.dryRun, parameters.fieldManager, parameters.fieldValidation];
  const patchConsumes = options.strategicMergePatch ? patchTypes : patchTypes.filter((type) => !type.includes('strategic'));
  const paths: Record<string, { parameters: Parameter[]; operations: Operation[] }> = {};
  const add = (path: string, pathParameters: Parameter[], operation: Operation) => {
    paths[path] ??= { parameters: [...pathParameters, parameters.pretty], operations: [] };
    paths[path].operations.push(operation);
  };
  const { kind } = definition;

  if (verbs.has('list')) {
    add(collectionPath, scopeParameters, { method: 'get', action: 'list', operationId: `list${id}${scoped}${kind}`, description: `list or watch objects of kind ${kind}`, parameters: parameters.list, responses: { '200': listName } });
  }
  if (verbs.has('create')) {
    add(collectionPath, scopeParameters, { method: 'post', action: 'post', operationId: `create${id}${scoped}${kind}`, description: `create a ${kind}`, parameters: writeParameters, body: kindName, responses: { '200': kindName, '201': kindName, '202': kindName } });
  }
  if (verbs.has('deletecollection')) {
    add(collectionPath, scopeParameters, {
      method: 'delete',
      action: 'deletecollection',
      operationId: `delete${id}Collection${scoped}${kind}`,
      description: `delete collection of ${kind}`,
      parameters: [...parameters.list.filter((parameter) => parameter.name !== 'watch' && parameter.name !== 'allowWatchBookmarks'), parameters.dryRun, parameters.gracePeriodSeconds, parameters.propagationPolicy],
      body: metaNames.deleteOptions,
      responses: { '200': metaNames.status },
    });
  }
  if (verbs.has('get')) {
    add(itemPath, [nameParameter, ...scopeParameters], { method: 'get', action: 'get', operationId: `read${id}${scoped}${kind}`, description: `read the specified ${kind}`, parameters: [], responses: { '200': kindName } });
  }
  if (verbs.has('update')) {
    add(itemPath, [nameParameter, ...scopeParameters], { method: 'put', action: 'put', operationId: `replace${id}${scoped}${kind}`, description: `replace the specified ${kind}`, parameters: writeParameters, body: kindName, responses: { '200': kindName, '201': kindName } });
  }
  if (verbs.has('patch')) {
    add(itemPath, [nameParameter, ...scopeParameters], { method: 'patch', action: 'patch', operationId: `patch${id}${scoped}${kind}`, description: `partially update the specified ${kind}`, parameters: [...writeParameters, parameters.force], body: metaNames.patch, consumes: patchConsumes, responses: { '200': kindName, '201': kindName } });
  }
  if (verbs.has('delete')) {
    add(itemPath, [nameParameter, ...scopeParameters], { method: 'delete', action: 'delete', operationId: `delete${id}${scoped}${kind}`, description: `delete a ${kind}`, parameters: [parameters.dryRun, parameters.gracePeriodSeconds, parameters.propagationPolicy], body: metaNames.deleteOptions, responses: { '200': kindName, '202': kindName } });
  }
  const subresources = definitionAt(definition, version).subresources;
  if (subresources?.status) {
    const statusPath = `${itemPath}/status`;
    const statusParameters = [nameParameter, ...scopeParameters];
    add(statusPath, statusParameters, { method: 'get', action: 'get', operationId: `read${id}${scoped}${kind}Status`, description: `read status of the specified ${kind}`, parameters: [], responses: { '200': kindName } });
    add(statusPath, statusParameters, { method: 'put', action: 'put', operationId: `replace${id}${scoped}${kind}Status`, description: `replace status of the specified ${kind}`, parameters: writeParameters, body: kindName, responses: { '200': kindName, '201': kindName } });
    add(statusPath, statusParameters, { method: 'patch', action: 'patch', operationId: `patch${id}${scoped}${kind}Status`, description: `partially update status of the specified ${kind}`, parameters: [...writeParameters, parameters.force], body: metaNames.patch, consumes: patchConsumes, responses: { '200': kindName, '201': kindName } });
  }
  for (const subresource of subresources?.replaceOnly ?? []) {
    const path = `${itemPath}/${subresource}`;
    add(path, [nameParameter, ...scopeParameters], { method: 'put', action: 'put', operationId: `replace${id}${scoped}${kind}${subresource.charAt(0).toUpperCase()}${subresource.slice(1)}`, description: `replace ${subresource} of the specified ${kind}`, parameters: writeParameters, body: kindName, responses: { '200': kindName, '201': kindName } });
  }
  for (const external of externalSubresources(definitionAt(definition, version))) {
    // A subresource taking and answering another kind (serviceaccounts/token: TokenRequest), as upstream's
    // createCoreV1NamespacedServiceAccountToken.
    const path = `${itemPath}/${external.name}`;
    const subresourceKind = external.kind.kind;
    const bodyName = options.definitionName(external.kind);
    const suffix = capitalize(external.name);
    const operation = { groupVersionKind: { group: external.kind.group, kind: subresourceKind, version: external.kind.version } };
    const pathParameters = [{ ...nameParameter, description: `name of the ${subresourceKind}` }, ...scopeParameters];
    const served = new Set<string>(external.verbs);
    if (served.has('get')) {
      add(path, pathParameters, { ...operation, method: 'get', action: 'get', operationId: `read${id}${scoped}${kind}${suffix}`, description: `read ${external.name} of the specified ${kind}`, parameters: [], responses: { '200': bodyName } });
    }
    if (served.has('create')) {
      add(path, pathParameters, { ...operation, method: 'post', action: 'post', operationId: `create${id}${scoped}${kind}${suffix}`, description: `create ${external.name} of a ${kind}`, parameters: writeParameters, body: bodyName, responses: { '200': bodyName, '201': bodyName, '202': bodyName } });
    }
    if (served.has('update')) {
      add(path, pathParameters, { ...operation, method: 'put', action: 'put', operationId: `replace${id}${scoped}${kind}${suffix}`, description: `replace ${external.name} of the specified ${kind}`, parameters: writeParameters, body: bodyName, responses: { '200': bodyName, '201': bodyName } });
    }
  }
  if (subresources?.scale) {
    const scalePath = `${itemPath}/scale`;
    const scaleParameters = [nameParameter, ...scopeParameters];
    const scaleOperation = { groupVersionKind: scaleGroupVersionKind, responses: { '200': scaleDefinitionName, '201': scaleDefinitionName } };
    add(scalePath, scaleParameters, { ...scaleOperation, method: 'get', action: 'get', operationId: `read${id}${scoped}${kind}Scale`, description: `read scale of the specified ${kind}`, parameters: [], responses: { '200': scaleDefinitionName } });
    add(scalePath, scaleParameters, { ...scaleOperation, method: 'put', action: 'put', operationId: `replace${id}${scoped}${kind}Scale`, description: `replace scale of the specified ${kind}`, parameters: writeParameters, body: scaleDefinitionName });
    add(scalePath, scaleParameters, { ...scaleOperation, method: 'patch', action: 'patch', operationId: `patch${id}${scoped}${kind}Scale`, description: `partially update scale of the specified ${kind}`, parameters: [...writeParameters, parameters.force], body: metaNames.patch, consumes: patchConsumes });
  }
  if (definition.namespaced && verbs.has('list')) {
    add(`${prefix}/${definition.resource}`, [], { method: 'get', action: 'list', operationId: `list${id}${kind}ForAllNamespaces`, description: `list or watch objects of kind ${kind}`, parameters: parameters.list, responses: { '200': listName } });
  }
  if (verbs.has('watch')) {
    add(`${prefix}/watch${scopePath}/${definition.resource}`, scopeParameters, { method: 'get', action: 'watchlist', operationId: `watch${id}${scoped}${kind}List`, description: `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`, parameters: parameters.list, responses: { '200': metaNames.watchEvent } });
    add(`${prefix}/watch${scopePath}/${definition.resource}/{name}`, [nameParameter, ...scopeParameters], { method: 'get', action: 'watch', operationId: `watch${id}${scoped}${kind}`, description: `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`, parameters: parameters.list, responses: { '200': metaNames.watchEvent } });
    if (definition.namespaced) {
      add(`${prefix}/watch/${definition.resource}`, [], { method: 'get', action: 'watchlist', operationId: `watch${id}${kind}ListForAllNamespaces`, description: `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`, parameters: parameters.list, responses: { '200': metaNames.watchEvent } });
    }
  }

  const tag = operationTag(definition.group, version);
  const rendered: Record<string, JSONSchema> = {};
  for (const [path, item] of Object.entries(paths)) {
    const pathItem: JSONSchema = {};
    for (const operation of item.operations) pathItem[operation.method] = renderOperation(operation, tag, operation.groupVersionKind ?? gvk, options.flavour);
    pathItem['parameters'] = item.parameters.map((parameter) => renderParameter(parameter, options.flavour));
    rendered[path] = pathItem;
  }
  return rendered;
}

function renderParameter(parameter: Parameter, flavour: OpenAPIFlavour): JSONSchema {
  const base: JSONSchema = { name: parameter.name, in: parameter.in, description: parameter.description };
  if (parameter.required) base['required'] = true;
  if (flavour === 'v2') return { ...base, type: parameter.type, uniqueItems: true };
  return { ...base, schema: { type: parameter.type, uniqueItems: true } };
}

function renderOperation(operation: Operation, tag: string, gvk: JSONSchema, flavour: OpenAPIFlavour): JSONSchema {
  const ref = refFor(flavour);
  const watch = operation.action === 'list' || operation.action.startsWith('watch');
  const produces = watch ? ['application/json', 'application/json;stream=watch'] : ['application/json'];
  const consumes = operation.consumes ?? ['application/json'];
  const responses: JSONSchema = {};
  for (const [code, name] of Object.entries(operation.responses)) {
    const description = code === '200' ? 'OK' : code === '201' ? 'Created' : 'Accepted';
    if (flavour === 'v2') responses[code] = name ? { description, schema: { $ref: ref(name) } } : { description };
    else responses[code] = name ? { description, content: Object.fromEntries(produces.map((type) => [type, { schema: { $ref: ref(name) } }])) } : { description };
  }
  responses['401'] = { description: 'Unauthorized' };
  const result: JSONSchema = { tags: [tag], description: operation.description, operationId: operation.operationId };
  const operationParameters = operation.parameters.map((parameter) => renderParameter(parameter, flavour));
  if (flavour === 'v2') {
    result['consumes'] = consumes;
    result['produces'] = produces;
    result['schemes'] = ['https'];
    if (operation.body) operationParameters.unshift({ name: 'body', in: 'body', required: operation.method !== 'delete', schema: { $ref: ref(operation.body) } });
  } else if (operation.body) {
    result['requestBody'] = {
      content: Object.fromEntries(consumes.map((type) => [type, { schema: { $ref: ref(operation.body!) } }])),
      ...(operation.method === 'delete' ? {} : { required: true }),
    };
  }
  if (operationParameters.length > 0) result['parameters'] = operationParameters;
  result['responses'] = responses;
  result['x-kubernetes-action'] = operation.action;
  result['x-kubernetes-group-version-kind'] = gvk;
  return result;
}
