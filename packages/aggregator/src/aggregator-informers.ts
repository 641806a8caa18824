import type { KubeObject } from '@kapi/apimachinery';
import { Informer, ResourceClient, type EventHandlers, type RestClient } from '@kapi/client';
import { apiregistrationGroup, type APIService } from './apiservice-kind.js';
import { serviceNameLabel, type ServiceLookup } from './endpoint-resolver.js';

const serviceSliceIndex = 'service';

/**
 * The caches the aggregator reads on every proxied request and check: APIServices, Services and
 * EndpointSlices (indexed by `<namespace>/<service-name>`), each an informer over the loopback client.
 */
export class AggregatorInformers implements ServiceLookup {
  readonly apiServiceInformer: Informer;
  readonly serviceInformer: Informer;
  readonly sliceInformer: Informer;

  constructor(rest: RestClient) {
    this.apiServiceInformer = new Informer(
      new ResourceClient(rest, { group: apiregistrationGroup, version: 'v1', resource: 'apiservices', namespaced: false }),
    );
    this.serviceInformer = new Informer(new ResourceClient(rest, { group: '', version: 'v1', resource: 'services', namespaced: true }));
    this.sliceInformer = new Informer(
      new ResourceClient(rest, { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', namespaced: true }),
      {
        indexers: {
          [serviceSliceIndex]: (slice) => {
            const service = slice.metadata.labels?.[serviceNameLabel];
            return service ? [`${slice.metadata.namespace ?? ''}/${service}`] : [];
          },
        },
      },
    );
  }

  /** Starts the three informers. */
  start(): void {
    for (const informer of this.all()) informer.start();
  }

  /** Resolves once all three caches hold a first list. */
  async waitForSync(timeoutMs?: number): Promise<void> {
    await Promise.all(this.all().map((informer) => informer.waitForSync(timeoutMs)));
  }

  async stop(): Promise<void> {
    await Promise.all(this.all().map((informer) => informer.stop()));
  }

  /** Registers the same handlers on Services and EndpointSlices (what an APIService's endpoint depends on). */
  onEndpointChange(handlers: EventHandlers): void {
    this.serviceInformer.addEventHandler(handlers);
    this.sliceInformer.addEventHandler(handlers);
  }

  /** The APIService named `<version>.<group>`, if any. */
  apiService(group: string, version: string): APIService | undefined {
    return this.apiServiceInformer.indexer.get(`${version}.${group}`) as APIService | undefined;
  }

  /** Every APIService in the cache. */
  listAPIServices(): APIService[] {
    return this.apiServiceInformer.indexer.list() as unknown as APIService[];
  }

  service(namespace: string, name: string): KubeObject | undefined {
    return this.serviceInformer.indexer.get(`${namespace}/${name}`);
  }

  endpointSlices(namespace: string, name: string): KubeObject[] {
    return this.sliceInformer.indexer.byIndex(serviceSliceIndex, `${namespace}/${name}`);
  }

  private all(): Informer[] {
    return [this.apiServiceInformer, this.serviceInformer, this.sliceInformer];
  }
}
