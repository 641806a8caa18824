import {
  apiregistrationGroup,
  automanagedLabel,
  customResourcePriority,
  registerAPIServices,
  unregisterAPIServices,
  type APIService,
} from '@kapi/aggregator';
import type { RestClient } from '@kapi/client';

/**
 * Upstream's crdRegistrationController: a local APIService (priority 1000/100, automanaged) for every
 * group/version custom resources serve, deleted once no CRD serves it. Fed by the apiextensions server's
 * hooks; the writes go through the loopback client in order, one change after the other, retried while
 * the server answers 429/5xx. An APIService someone else created under such a name is left alone.
 */
export class CustomResourceAPIServices {
  /** The served versions of each custom resource, by `group/resource`. */
  private readonly versions = new Map<string, { group: string; versions: readonly string[] }>();
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly rest: () => RestClient,
    private readonly log: (message: string) => void,
  ) {}

  /** A custom resource is served (again) at `versions`. */
  served(definition: { group: string; resource: string; versions: readonly string[] }): void {
    this.change(() => this.versions.set(`${definition.group}/${definition.resource}`, { group: definition.group, versions: [...definition.versions] }));
  }

  /** A custom resource is no longer served (its CRD is deleted). */
  removed(groupResource: { group: string; resource: string }): void {
    this.change(() => this.versions.delete(`${groupResource.group}/${groupResource.resource}`));
  }

  /**
   * Deletes the automanaged APIServices of custom resources no CRD serves (a CRD deleted while no server
   * ran), as upstream's autoregister controller syncs those it manages: called once the CRDs stored at
   * start are served, so that every group/version still served is wanted.
   */
  async removeStale(): Promise<void> {
    const selector = encodeURIComponent(`${automanagedLabel}=true`);
    this.writes = this.writes
      .then(async () => {
        const list = await this.rest().request<{ items: APIService[] }>({ method: 'GET', path: `/apis/${apiregistrationGroup}/v1/apiservices?labelSelector=${selector}` });
        const wanted = this.wanted();
        const stale = list.items.map((service) => service.metadata.name ?? '').filter((name) => name && !wanted.has(name));
        if (stale.length === 0) return;
        this.log(`custom resource APIServices: deleting ${stale.join(', ')} (no CRD serves them)`);
        await unregisterAPIServices(this.rest(), stale);
      })
      .catch((error: unknown) => this.log(`custom resource APIServices: ${error instanceof Error ? error.message : String(error)}`));
    await this.writes;
  }

  private change(apply: () => void): void {
    const before = this.wanted();
    apply();
    const after = this.wanted();
    const added = [...after].filter(([name]) => !before.has(name)).map(([, service]) => service);
    const gone = [...before.keys()].filter((name) => !after.has(name));
    if (added.length === 0 && gone.length === 0) return;
    this.writes = this.writes
      .then(async () => {
        await registerAPIServices(this.rest(), added);
        await unregisterAPIServices(this.rest(), gone);
      })
      .catch((error: unknown) => this.log(`custom resource APIServices: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** The APIServices wanted now, by name (`<version>.<group>`). */
  private wanted(): Map<string, APIService> {
    const wanted = new Map<string, APIService>();
    for (const { group, versions } of this.versions.values()) {
      for (const version of versions) {
        const name = `${version}.${group}`;
        wanted.set(name, {
          apiVersion: `${apiregistrationGroup}/v1`,
          kind: 'APIService',
          metadata: { name, labels: { [automanagedLabel]: 'true' } },
          spec: { group, version, groupPriorityMinimum: customResourcePriority[0], versionPriority: customResourcePriority[1] },
        });
      }
    }
    return wanted;
  }
}
