import { definitionAt, type ResourceDefinition, type Verb } from '../resource-definition.js';

/** A resource the server serves, as discovery and OpenAPI see it. */
export interface InstalledResource {
  definition: ResourceDefinition;
  /** Hash of the storage GVK (`storageVersionHash(group, storageVersion, kind)`); shown in legacy discovery only. */
  storageVersionHash?: string;
  /** Served elsewhere and last fetched unsuccessfully: aggregated discovery marks its version `Stale`. */
  stale?: boolean;
  /**
   * Lists the definition's group/version in `/apis` and `/apis/<group>` only, with no resource (an
   * APIService whose backend's discovery was never fetched): legacy discovery lists every APIService.
   */
  groupVersionOnly?: boolean;
}

/** metav1.ServerAddressByClientCIDR. */
export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

/** metav1.GroupVersionForDiscovery. */
export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

/** metav1.APIGroup. */
export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
  serverAddressByClientCIDRs?: ServerAddressByClientCIDR[];
}

/** metav1.APIResource. */
export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  /** The group and version of `kind` when they differ from the list's (a `/scale` subresource). */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** metav1.APIResourceList (the `/api/v1` form has no apiVersion, as upstream's legacy codec writes it). */
export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

/** apidiscovery.k8s.io APIResourceDiscovery. */
export interface APIResourceDiscovery {
  resource: string;
  responseKind: { group: string; version: string; kind: string };
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind: { group: string; version: string; kind: string }; verbs: string[] }[];
}

/** apidiscovery.k8s.io APIGroupDiscovery. */
export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: { version: string; resources: APIResourceDiscovery[]; freshness: 'Current' | 'Stale' }[];
}

/** apidiscovery.k8s.io APIGroupDiscoveryList at v2 or v2beta1. */
export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: 'apidiscovery.k8s.io/v2' | 'apidiscovery.k8s.io/v2beta1';
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

const allVerbs: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const statusVerbs = ['get', 'patch', 'update'];

/** One group and its served versions, preferred first. */
export interface ServedGroup {
  name: string;
  versions: string[];
}

/**
 * The served groups, in order of first appearance; each group's versions in order of first appearance
 * across its resources (a definition lists its versions preferred first). The core group is `''`.
 */
export function servedGroups(resources: readonly InstalledResource[]): ServedGroup[] {
  const groups = new Map<string, string[]>();
  for (const { definition } of resources) {
    const versions = groups.get(definition.group) ?? [];
    for (const version of definition.versions) if (!versions.includes(version)) versions.push(version);
    groups.set(definition.group, versions);
  }
  return [...groups].map(([name, versions]) => ({ name, versions }));
}

function groupVersionString(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/** `/api`: APIVersions. */
export function apiVersionsDocument(resources: readonly InstalledResource[], addresses: ServerAddressByClientCIDR[]) {
  const core = servedGroups(resources).find((group) => group.name === '');
  return { kind: 'APIVersions' as const, versions: core?.versions ?? ['v1'], serverAddressByClientCIDRs: addresses };
}

/** One APIGroup (for `/apis/<group>` and the entries of `/apis`). */
export function apiGroupDocument(group: ServedGroup): APIGroup {
  const versions = group.versions.map((version) => ({ groupVersion: groupVersionString(group.name, version), version }));
  return { name: group.name, versions, preferredVersion: versions[0] ?? { groupVersion: '', version: '' } };
}

/**
 * `resources` with their groups in order of `priority`, highest first, ties by group name (a stable
 * sort: each group keeps the order of its resources and versions).
 */
export function byGroupPriority(resources: readonly InstalledResource[], priority: (group: string) => number): InstalledResource[] {
  const priorities = new Map<string, number>();
  const of = (group: string): number => {
    let value = priorities.get(group);
    if (value === undefined) priorities.set(group, (value = priority(group)));
    return value;
  };
  return [...resources].sort((a, b) => of(b.definition.group) - of(a.definition.group) || compare(a.definition.group, b.definition.group));
}

/** `/apis`: APIGroupList of every non-core group. */
export function apiGroupListDocument(resources: readonly InstalledResource[], addresses: ServerAddressByClientCIDR[]) {
  const groups = servedGroups(resources)
    .filter((group) => group.name !== '')
    .map((group) => ({ ...apiGroupDocument(group), ...(addresses.length > 0 ? { serverAddressByClientCIDRs: addresses } : {}) }));
  return { kind: 'APIGroupList' as const, apiVersion: 'v1' as const, groups };
}

/** The verbs a definition serves, sorted as upstream lists them. */
export function servedVerbs(definition: ResourceDefinition): string[] {
  const verbs = definition.verbs ?? allVerbs;
  return [...new Set<string>(verbs)].sort();
}

function resourcesAt(resources: readonly InstalledResource[], group: string, version: string): InstalledResource[] {
  return resources
    .filter(({ definition, groupVersionOnly }) => !groupVersionOnly && definition.group === group && definition.versions.includes(version))
    .map((installed) => ({ ...installed, definition: definitionAt(installed.definition, version) }))
    .sort((a, b) => compare(a.definition.resource, b.definition.resource));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `/api/v1`, `/apis/<group>/<version>`: APIResourceList, or undefined when nothing is served there. */
export function apiResourceListDocument(
  resources: readonly InstalledResource[],
  group: string,
  version: string,
): APIResourceList | undefined {
  const served = resourcesAt(resources, group, version);
  if (served.length === 0) return undefined;
  const list: APIResource[] = [];
  for (const { definition, storageVersionHash } of served) {
    const entry: APIResource = {
      name: definition.resource,
      singularName: definition.singularName ?? definition.kind.toLowerCase(),
      namespaced: definition.namespaced,
      kind: definition.kind,
      verbs: servedVerbs(definition),
    };
    if (definition.shortNames?.length) entry.shortNames = [...definition.shortNames];
    if (definition.categories?.length) entry.categories = [...definition.categories];
    if (storageVersionHash) entry.storageVersionHash = storageVersionHash;
    list.push(entry);
    if (definition.subresources?.status) {
      list.push({
        name: `${definition.resource}/status`,
        singularName: '',
        namespaced: definition.namespaced,
        kind: definition.kind,
        verbs: [...statusVerbs],
      });
    }
    for (const subresource of definition.subresources?.replaceOnly ?? []) {
      list.push({ name: `${definition.resource}/${subresource}`, singularName: '', namespaced: definition.namespaced, kind: definition.kind, verbs: ['update'] });
    }
    if (definition.subresources?.scale) {
      list.push({
        name: `${definition.resource}/scale`,
        singularName: '',
        namespaced: definition.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: [...statusVerbs],
      });
    }
    for (const { name, kind, verbs } of definition.subresources?.servedElsewhere ?? []) {
      list.push({ name: `${definition.resource}/${name}`, singularName: '', namespaced: definition.namespaced, group: kind.group, version: kind.version, kind: kind.kind, verbs: [...verbs] });
    }
  }
  const groupVersion = groupVersionString(group, version);
  return group === ''
    ? { kind: 'APIResourceList', groupVersion, resources: list }
    : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources: list };
}

/**
 * Aggregated discovery (`apidiscovery.k8s.io/v2` or `v2beta1`) for `/api` (core group only) or `/apis`
 * (every other group). A version is `Current` unless one of its resources is `stale`; subresources nest under their resource; no
 * storageVersionHash (upstream leaves it out of aggregated discovery).
 */
export function aggregatedDiscoveryDocument(
  resources: readonly InstalledResource[],
  root: 'api' | 'apis',
  version: 'v2' | 'v2beta1' = 'v2',
): APIGroupDiscoveryList {
  const groups = servedGroups(resources.filter((resource) => !resource.groupVersionOnly)).filter((group) =>
    root === 'api' ? group.name === '' : group.name !== '',
  );
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${version}`,
    metadata: {},
    items: groups.map((group) => ({
      metadata: group.name === '' ? { creationTimestamp: null } : { name: group.name, creationTimestamp: null },
      versions: group.versions.map((servedVersion) => ({
        version: servedVersion,
        resources: resourcesAt(resources, group.name, servedVersion).map(({ definition }) => {
          const responseKind = { group: definition.group, version: servedVersion, kind: definition.kind };
          const entry: APIResourceDiscovery = {
            resource: definition.resource,
            responseKind,
            scope: definition.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: definition.singularName ?? definition.kind.toLowerCase(),
            verbs: servedVerbs(definition),
          };
          if (definition.shortNames?.length) entry.shortNames = [...definition.shortNames];
          if (definition.categories?.length) entry.categories = [...definition.categories];
          if (definition.subresources?.status) {
            entry.subresources = [{ subresource: 'status', responseKind: { ...responseKind }, verbs: [...statusVerbs] }];
          }
          if (definition.subresources?.scale) {
            const scale = { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: [...statusVerbs] };
            entry.subresources = [...(entry.subresources ?? []), scale];
          }
          for (const subresource of definition.subresources?.replaceOnly ?? []) {
            entry.subresources = [...(entry.subresources ?? []), { subresource, responseKind: { ...responseKind }, verbs: ['update'] }];
          }
          for (const { name, kind, verbs } of definition.subresources?.servedElsewhere ?? []) {
            entry.subresources = [...(entry.subresources ?? []), { subresource: name, responseKind: { ...kind }, verbs: [...verbs] }];
          }
          return entry;
        }),
        freshness: resourcesAt(resources, group.name, servedVersion).some((resource) => resource.stale)
          ? ('Stale' as const)
          : ('Current' as const),
      })),
    })),
  };
}
