import type { RestClient } from '@kapi/client';
import type { Filter } from '@kapi/filters';
import { AggregatedDiscovery } from './aggregated-discovery.js';
import { AggregatorInformers } from './aggregator-informers.js';
import { AvailabilityController } from './availability-controller.js';
import { BackendAgents, type ProxyClientCertificate } from './backend-transport.js';
import type { ServiceLookup } from './endpoint-resolver.js';
import { withAggregatorProxy, type ProxyLookup } from './with-aggregator-proxy.js';

/** Options of {@link AggregationLayer}. */
export interface AggregationLayerOptions {
  /** The client certificate presented to backends (CN `front-proxy-client`, signed by the request-header CA). */
  proxyClientCertificate: ProxyClientCertificate;
  /** Period of the availability re-check (default 30 s, as upstream's resync). */
  availabilityIntervalMs?: number;
  /** Timeout of a discovery check (default 5 s). */
  discoveryTimeoutMs?: number;
}

/**
 * The remote side of kube-aggregator: the proxy filter (put it after authentication and authorization,
 * before the routes), the backends' merged discovery and, once started with a loopback client, the caches
 * the filter reads and the availability controller (which fetches the discovery). Until started, the filter
 * passes every request on.
 */
export class AggregationLayer {
  /** The handler-chain filter that proxies remote APIServices' group/versions. */
  readonly filter: Filter;
  /** The backends' discovery: pass it to the server's `addAggregatedDiscoverySource`. */
  readonly discovery = new AggregatedDiscovery();
  /** Services and EndpointSlices from the caches (empty until started), e.g. to resolve webhooks' services. */
  readonly services: ServiceLookup;
  private readonly agents: BackendAgents;
  private informers: AggregatorInformers | undefined;
  private controller: AvailabilityController | undefined;

  constructor(private readonly options: AggregationLayerOptions) {
    this.agents = new BackendAgents(() => options.proxyClientCertificate);
    const lookup: ProxyLookup = {
      apiService: (group, version) => this.informers?.apiService(group, version),
      service: (namespace, name) => this.informers?.service(namespace, name),
      endpointSlices: (namespace, name) => this.informers?.endpointSlices(namespace, name) ?? [],
    };
    this.filter = withAggregatorProxy({ lookup, agents: this.agents });
    this.services = lookup;
  }

  /** Starts the caches and the availability controller; resolves once the caches are synced. */
  async start(rest: RestClient): Promise<void> {
    if (this.informers) return;
    const informers = new AggregatorInformers(rest);
    this.informers = informers;
    this.controller = new AvailabilityController({
      rest,
      informers,
      agents: this.agents,
      discovery: this.discovery,
      ...(this.options.availabilityIntervalMs ? { intervalMs: this.options.availabilityIntervalMs } : {}),
      ...(this.options.discoveryTimeoutMs ? { discoveryTimeoutMs: this.options.discoveryTimeoutMs } : {}),
    });
    this.controller.start();
    informers.start();
    await informers.waitForSync();
  }

  /** Stops the controller and the caches, and closes backend connections. */
  async stop(): Promise<void> {
    await this.controller?.stop();
    await this.informers?.stop();
    this.agents.close();
  }
}
