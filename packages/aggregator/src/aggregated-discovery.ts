import type { AggregatedDiscoverySource, APIResource, APIResourceList, InstalledResource, OpenAPIV2Part, ResourceDefinition } from '@kapi/server';
import type { APIService } from './apiservice-kind.js';

interface Entry {
  apiService: APIService;
  /** Undefined until the backend's discovery was fetched once. */
  resources: APIResource[] | undefined;
  stale: boolean;
  openAPIV3URL?: string;
  /** What the backend adds to `/openapi/v2` for this group/version. */
  openAPIV2?: OpenAPIV2Part;
}

/** An aggregated resource as discovery shows it (the verbs as the backend lists them). */
function definitionOf(group: string, version: string, resource: APIResource, all: readonly APIResource[]): ResourceDefinition {
  return {
    group,
    resource: resource.name,
    kind: resource.kind,
    namespaced: resource.namespaced,
    versions: [version],
    verbs: resource.verbs as NonNullable<ResourceDefinition['verbs']>,
    ...(resource.singularName ? { singularName: resource.singularName } : {}),
    ...(resource.shortNames?.length ? { shortNames: [...resource.shortNames] } : {}),
    ...(resource.categories?.length ? { categories: [...resource.categories] } : {}),
    ...(all.some((other) => other.name === `${resource.name}/status`) ? { subresources: { status: true } } : {}),
  };
}

/**
 * The discovery of remote APIServices, fetched from their backends (the availability controller feeds it
 * from each discovery check): merged into the server's `/apis`, `/apis/<group>` and aggregated discovery,
 * groups by highest `groupPriorityMinimum`, versions by `versionPriority`. Every registered APIService's
 * group/version is in `/apis` and `/apis/<group>` from the start, fetched or not, as upstream; a version whose
 * last fetch failed stays listed, `Stale` in aggregated discovery, as upstream.
 */
export class AggregatedDiscovery implements AggregatedDiscoverySource {
  private readonly entries = new Map<string, Entry>();

  /** Lists a remote APIService's group/version (keeping what was fetched of its discovery). */
  register(apiService: APIService): void {
    const name = apiService.metadata.name ?? '';
    const previous = this.entries.get(name);
    if (previous) previous.apiService = apiService;
    else this.entries.set(name, { apiService, resources: undefined, stale: false });
  }

  /** Records a backend's `APIResourceList` for its APIService. */
  update(apiService: APIService, list: APIResourceList): void {
    const previous = this.entries.get(apiService.metadata.name ?? '');
    this.entries.set(apiService.metadata.name ?? '', {
      ...previous,
      apiService,
      resources: Array.isArray(list.resources) ? list.resources : [],
      stale: false,
    });
  }

  /** Records where the backend serves the OpenAPI v3 document of the APIService's group/version. */
  setOpenAPIV3URL(name: string, serverRelativeURL: string | undefined): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    if (serverRelativeURL) entry.openAPIV3URL = serverRelativeURL;
    else delete entry.openAPIV3URL;
  }

  /** The backend's part of `/openapi/v2` for an APIService, as last fetched. */
  openAPIV2Of(name: string): OpenAPIV2Part | undefined {
    return this.entries.get(name)?.openAPIV2;
  }

  /** Records the backend's part of `/openapi/v2` for an APIService (undefined: it serves none). */
  setOpenAPIV2(name: string, part: OpenAPIV2Part | undefined): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    if (part) entry.openAPIV2 = part;
    else delete entry.openAPIV2;
  }

  /** Marks an APIService's discovery stale (its backend could not be reached). */
  markStale(name: string): void {
    const entry = this.entries.get(name);
    if (entry) entry.stale = true;
  }

  /** The highest `groupPriorityMinimum` of the registered APIServices of `group`, or undefined when it has none. */
  groupPriority(group: string): number | undefined {
    let highest: number | undefined;
    for (const { apiService } of this.entries.values()) {
      if ((apiService.spec.group ?? '') === group) highest = Math.max(highest ?? apiService.spec.groupPriorityMinimum, apiService.spec.groupPriorityMinimum);
    }
    return highest;
  }

  /** Forgets an APIService (deleted, or local now). */
  remove(name: string): void {
    this.entries.delete(name);
  }

  resources(): InstalledResource[] {
    const groupPriority = new Map<string, number>();
    for (const { apiService } of this.entries.values()) {
      const group = apiService.spec.group ?? '';
      groupPriority.set(group, Math.max(groupPriority.get(group) ?? 0, apiService.spec.groupPriorityMinimum));
    }
    const ordered = [...this.entries.values()].sort((a, b) => {
      const groupA = a.apiService.spec.group ?? '';
      const groupB = b.apiService.spec.group ?? '';
      return (
        (groupPriority.get(groupB) ?? 0) - (groupPriority.get(groupA) ?? 0) ||
        groupA.localeCompare(groupB) ||
        b.apiService.spec.versionPriority - a.apiService.spec.versionPriority ||
        (a.apiService.spec.version ?? '').localeCompare(b.apiService.spec.version ?? '')
      );
    });
    return ordered.flatMap(({ apiService, resources = [], stale }): InstalledResource[] => {
      const group = apiService.spec.group ?? '';
      const version = apiService.spec.version ?? '';
      const listed = resources.filter((resource) => !resource.name.includes('/'));
      if (listed.length === 0) {
        const definition = { group, resource: '', kind: '', namespaced: false, versions: [version] };
        return [{ definition, groupVersionOnly: true }];
      }
      return listed.map((resource) => ({
        definition: definitionOf(group, version, resource, resources),
        ...(stale ? { stale: true } : {}),
      }));
    });
  }

  /** The `/openapi/v2` parts of every fetched APIService, kept while it is stale (as upstream keeps the last spec). */
  openAPIV2(): OpenAPIV2Part[] {
    return [...this.entries.values()].flatMap(({ openAPIV2 }) => (openAPIV2 ? [openAPIV2] : []));
  }

  openAPIV3Paths(): Record<string, string> {
    const paths: Record<string, string> = {};
    for (const { apiService, openAPIV3URL, stale } of this.entries.values()) {
      if (openAPIV3URL && !stale) paths[`apis/${apiService.spec.group ?? ''}/${apiService.spec.version ?? ''}`] = openAPIV3URL;
    }
    return paths;
  }
}
