import { StatusError, setCondition, type Condition, type ConditionInput } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import type { APIResourceList } from '@kapi/server';
import type { AggregatorInformers } from './aggregator-informers.js';
import type { APIService } from './apiservice-kind.js';
import { localAvailableCondition } from './apiservice-resource.js';
import type { BackendAgents } from './backend-transport.js';
import type { AggregatedDiscovery } from './aggregated-discovery.js';
import { backendGet } from './discovery-check.js';
import { isEndpointFailure, resolveEndpoint, type ResolvedEndpoint } from './endpoint-resolver.js';
import { fetchOpenAPIV2Part } from './openapi-v2-part.js';

/** Options of {@link AvailabilityController}. */
export interface AvailabilityControllerOptions {
  rest: RestClient;
  informers: AggregatorInformers;
  agents: BackendAgents;
  /** Where the backends' discovery (and OpenAPI v3 index entry, OpenAPI v2 part) fetched by each passing check goes. */
  discovery?: AggregatedDiscovery;
  /** How often every APIService is checked again (upstream resyncs every 30 s). */
  intervalMs?: number;
  /** Timeout of a discovery check (upstream: 5 s). */
  discoveryTimeoutMs?: number;
  now?: () => Date;
}

/** The backend's `serverRelativeURL` of `apis/<group>/<version>` in its `/openapi/v3` index, if it has one. */
async function openAPIV3URL(endpoint: ResolvedEndpoint, apiService: APIService, agents: BackendAgents, timeoutMs: number): Promise<string | undefined> {
  const answer = await backendGet(endpoint, '/openapi/v3', agents.agentFor(apiService, endpoint), timeoutMs);
  if (!answer.body) return undefined;
  try {
    const index = JSON.parse(answer.body.toString('utf8')) as { paths?: Record<string, { serverRelativeURL?: string }> };
    return index.paths?.[`apis/${apiService.spec.group ?? ''}/${apiService.spec.version ?? ''}`]?.serverRelativeURL;
  } catch {
    return undefined;
  }
}

/**
 * kube-aggregator's availability controller: keeps `status.conditions[type=Available]` of every
 * APIService: `Local` for local ones; for remote ones ServiceNotFound, ServicePortError,
 * EndpointsNotFound, MissingEndpoints, FailedDiscoveryCheck (False) or Passed (True). An APIService is
 * checked when it, a Service or an EndpointSlice changes, and all of them every `intervalMs`.
 */
export class AvailabilityController {
  private readonly dirty = new Set<string>();
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly checks = new Set<Promise<void>>();

  constructor(private readonly options: AvailabilityControllerOptions) {}

  /** Registers the informer handlers and the periodic re-check (the informers are started by their owner). */
  start(): void {
    const informers = this.options.informers;
    informers.apiServiceInformer.addEventHandler({
      onAdd: (object) => this.enqueue(object.metadata.name ?? ''),
      onUpdate: (_old, object) => this.enqueue(object.metadata.name ?? ''),
      onDelete: (object) => this.options.discovery?.remove(object.metadata.name ?? ''),
    });
    const enqueueRemote = () => {
      for (const apiService of informers.listAPIServices()) if (apiService.spec.service) this.enqueue(apiService.metadata.name ?? '');
    };
    informers.onEndpointChange({ onAdd: enqueueRemote, onUpdate: enqueueRemote, onDelete: enqueueRemote });
    this.timer = setInterval(() => {
      for (const apiService of informers.listAPIServices()) this.enqueue(apiService.metadata.name ?? '');
    }, this.options.intervalMs ?? 30_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.all([...this.checks]);
  }

  private enqueue(name: string): void {
    if (this.stopped || !name) return;
    this.dirty.add(name);
    if (this.inFlight.has(name)) return;
    this.inFlight.add(name);
    const check = this.drain(name).finally(() => {
      this.inFlight.delete(name);
      this.checks.delete(check);
    });
    this.checks.add(check);
  }

  /** Checks one APIService until no change arrived during its last check. */
  private async drain(name: string): Promise<void> {
    while (this.dirty.delete(name) && !this.stopped) {
      try {
        await this.sync(name);
      } catch {
        // A conflict or a failed write: the informer's next event or the next period checks again.
      }
    }
  }

  /** The Available condition an APIService should have right now; a passing check also refreshes its discovery. */
  private async check(apiService: APIService): Promise<ConditionInput> {
    const name = apiService.metadata.name ?? '';
    const discovery = this.options.discovery;
    if (!apiService.spec.service) {
      discovery?.remove(name);
      return localAvailableCondition;
    }
    discovery?.register(apiService);
    const endpoint = resolveEndpoint(apiService, this.options.informers);
    if (isEndpointFailure(endpoint)) {
      discovery?.markStale(name);
      return { type: 'Available', status: 'False', ...endpoint };
    }
    const timeoutMs = this.options.discoveryTimeoutMs ?? 5000;
    const agents = this.options.agents;
    const path = `/apis/${apiService.spec.group ?? ''}/${apiService.spec.version ?? ''}`;
    const answer = await backendGet(endpoint, path, agents.agentFor(apiService, endpoint), timeoutMs);
    if (answer.failure !== undefined) {
      discovery?.markStale(name);
      return { type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: answer.failure };
    }
    if (discovery) {
      try {
        discovery.update(apiService, JSON.parse(answer.body.toString('utf8')) as APIResourceList);
        discovery.setOpenAPIV3URL(name, await openAPIV3URL(endpoint, apiService, agents, timeoutMs));
        discovery.setOpenAPIV2(name, await fetchOpenAPIV2Part(endpoint, apiService, agents, timeoutMs, discovery.openAPIV2Of(name)));
      } catch {
        discovery.markStale(name);
      }
    }
    return { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' };
  }

  private async sync(name: string): Promise<void> {
    const cached = this.options.informers.apiServiceInformer.indexer.get(name) as APIService | undefined;
    if (!cached) {
      this.options.discovery?.remove(name);
      return;
    }
    const condition = await this.check(cached);
    // The check may have taken seconds: write against the newest cached version.
    const current = (this.options.informers.apiServiceInformer.indexer.get(name) as APIService | undefined) ?? cached;
    const existing = current.status?.conditions?.find((candidate) => candidate.type === 'Available');
    if (existing?.status === condition.status && existing.reason === condition.reason && existing.message === condition.message) return;
    const conditions = setCondition(current.status?.conditions as Condition[] | undefined, condition, (this.options.now ?? (() => new Date()))());
    try {
      await this.options.rest.request({
        method: 'PUT',
        path: `/apis/apiregistration.k8s.io/v1/apiservices/${encodeURIComponent(name)}/status`,
        body: { ...current, status: { ...current.status, conditions } },
      });
    } catch (error) {
      if (StatusError.isInstance(error) && error.code === 404) return;
      throw error;
    }
  }
}
