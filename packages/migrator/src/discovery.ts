import { StatusError } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';

/** A resource found in discovery: what the migrator needs to list and write it. */
export interface DiscoveredResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

interface APIResourceList {
  resources?: Array<{ name: string; kind: string; namespaced: boolean; verbs?: string[] }>;
}

/** Finds a group/resource at its group's preferred version; undefined when discovery does not list it. */
export async function discoverResource(rest: RestClient, group: string, resource: string): Promise<DiscoveredResource | undefined> {
  let version = 'v1';
  if (group !== '') {
    const found = await rest
      .request<{ preferredVersion?: { version?: string } }>({ method: 'GET', path: `/apis/${group}` })
      .catch((error: unknown) => {
        if (StatusError.isInstance(error) && error.code === 404) return undefined;
        throw error;
      });
    version = found?.preferredVersion?.version ?? '';
    if (!version) return undefined;
  }
  const list = await rest.request<APIResourceList>({ method: 'GET', path: group === '' ? '/api/v1' : `/apis/${group}/${version}` });
  const entry = list.resources?.find((candidate) => candidate.name === resource);
  if (!entry) return undefined;
  return { group, version, resource, kind: entry.kind, namespaced: entry.namespaced, verbs: entry.verbs ?? [] };
}
