import type { KubeObject } from '@kapi/apimachinery';
import { Informer, ResourceClient, type RestClient } from '@kapi/client';
import { WatchedObjects, type WatchedStorage } from '@kapi/storage';

/**
 * Objects of one resource kept current (webhook configurations, policies, bindings, namespaces), read on
 * every request without a call: {@link WatchedObjects} over this server's storage, or
 * {@link InformedObjects} over another server's API (an aggregated server reads the main server's).
 */
export interface ObjectSet {
  /** The objects by `<namespace>/<name>` (`/<name>` when cluster-scoped). */
  readonly objects: ReadonlyMap<string, KubeObject>;
  /** Bumped on every change: callers may cache what they derive from `objects` per generation. */
  readonly generation: number;
  stop(): void;
}

/** An {@link ObjectSet} kept by an informer (list and watch through a REST client). */
export class InformedObjects implements ObjectSet {
  readonly objects = new Map<string, KubeObject>();
  generation = 0;
  private readonly informer: Informer;

  constructor(client: ResourceClient) {
    const set = (object: KubeObject) => {
      this.objects.set(keyOf(object), object);
      this.generation += 1;
    };
    this.informer = new Informer(client).addEventHandler({
      onAdd: set,
      onUpdate: (_old, object) => set(object),
      onDelete: (object) => {
        this.objects.delete(keyOf(object));
        this.generation += 1;
      },
    });
  }

  /** Starts the informers of `clients`; resolves with their sets once every one has listed. */
  static async started<K extends string>(clients: Record<K, ResourceClient>): Promise<Record<K, InformedObjects>> {
    const entries = Object.entries(clients).map(([name, client]) => [name, new InformedObjects(client as ResourceClient)] as const);
    for (const [, set] of entries) set.informer.start();
    await Promise.all(entries.map(([, set]) => set.informer.waitForSync()));
    return Object.fromEntries(entries) as Record<K, InformedObjects>;
  }

  stop(): void {
    void this.informer.stop();
  }
}

const keyOf = (object: KubeObject) => `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;

const admissionregistration = (rest: RestClient, resource: string) =>
  new ResourceClient(rest, { group: 'admissionregistration.k8s.io', version: 'v1', resource, namespaced: false });

/** The webhook configurations of this server's storage (the storage and key prefix of each resource). */
export const storedWebhookConfigurations = (storages: { validating: WatchedStorage; mutating: WatchedStorage }) => WatchedObjects.started(storages);

/** The webhook configurations of the server `rest` talks to (list/watch on admissionregistration.k8s.io). */
export const servedWebhookConfigurations = (rest: RestClient) =>
  InformedObjects.started({
    validating: admissionregistration(rest, 'validatingwebhookconfigurations'),
    mutating: admissionregistration(rest, 'mutatingwebhookconfigurations'),
  });

/** The ValidatingAdmissionPolicies and bindings of this server's storage. */
export const storedPolicies = (storages: { policies: WatchedStorage; bindings: WatchedStorage }) => WatchedObjects.started(storages);

/** The ValidatingAdmissionPolicies and bindings of the server `rest` talks to. */
export const servedPolicies = (rest: RestClient) =>
  InformedObjects.started({
    policies: admissionregistration(rest, 'validatingadmissionpolicies'),
    bindings: admissionregistration(rest, 'validatingadmissionpolicybindings'),
  });

/** The namespaces of the server `rest` talks to (for namespaceSelector and `namespaceObject`). */
export const servedNamespaces = async (rest: RestClient): Promise<InformedObjects> =>
  (await InformedObjects.started({ namespaces: new ResourceClient(rest, { group: '', version: 'v1', resource: 'namespaces', namespaced: false }) })).namespaces;
