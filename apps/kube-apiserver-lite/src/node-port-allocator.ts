import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { Interface } from '@kapi/storage';
import type { RepairedAllocations } from './service-allocation-repair.js';
import {
  ClaimStore,
  parentRefOf,
  parentRefTo,
  pickInBands,
  type Claim,
  type ServiceRef,
} from './service-claims.js';

/** A node port range (`--service-node-port-range`), both ends included. */
export interface NodePortRange {
  readonly base: number;
  readonly size: number;
}

/** Upstream's default `--service-node-port-range`. */
export const defaultServiceNodePortRange = '30000-32767';

/** Parses `30000-32767` (or a single port); refuses what is not a range of ports. */
export function parseNodePortRange(text: string): NodePortRange {
  const match = /^([0-9]{1,5})(?:-([0-9]{1,5}))?$/.exec(text.trim());
  const first = Number(match?.[1]);
  const last = match?.[2] === undefined ? first : Number(match[2]);
  if (!match || first < 1 || last > 65535 || last < first)
    throw new Error(
      `--service-node-port-range: ${JSON.stringify(text)} is not a port range (e.g. 30000-32767)`,
    );
  return { base: first, size: last - first + 1 };
}

export const formatNodePortRange = (range: NodePortRange) => `${range.base}-${range.base + range.size - 1}`;

/**
 * Node ports of NodePort and LoadBalancer Services, unique across the cluster and every replica: one
 * storage object per allocated port under `<prefix>/`, made and removed as {@link ClaimStore} does.
 * Dynamic ports come from the upper band first (KEP-3668: min(max(16, size/32), 128) ports at the
 * start are left to ports requests name).
 */
export class NodePortAllocator {
  private readonly claims: ClaimStore;

  constructor(
    storage: Interface,
    prefix: string,
    readonly range: NodePortRange,
  ) {
    this.claims = new ClaimStore(storage, prefix, nodePortObject, parentRefOf);
  }

  /** Allocates a free port to `service` (picked but not kept on a dry run); upstream's 500 when the range is full. */
  async allocateNext(service: ServiceRef, dryRun = false): Promise<number> {
    const { base, size } = this.range;
    const band = Math.min(Math.max(16, Math.floor(size / 32)), 128);
    const offset = await pickInBands(size, band, (candidate) =>
      this.claims.claimFree(String(base + candidate), service, dryRun),
    );
    if (offset === undefined) throw StatusError.internal('failed to allocate a nodePort: range is full');
    return base + offset;
  }

  /**
   * Allocates `port`, which the request named at `field`, to `service`; upstream's 422 when it is
   * outside the range or another Service holds it. A port `service` already holds is kept.
   */
  async allocate(port: number, service: ServiceRef, field: string, dryRun = false): Promise<void> {
    const fail = (detail: string) =>
      StatusError.invalid({ group: '', kind: 'Service' }, service.name, [
        { field, type: 'FieldValueInvalid', value: port, detail },
      ]);
    if (port < this.range.base || port >= this.range.base + this.range.size)
      throw fail(
        `provided port is not in the valid range. The range of valid ports is ${formatNodePortRange(this.range)}`,
      );
    if (!(await this.claims.take(String(port), service, dryRun)))
      throw fail('provided port is already allocated');
  }

  release(port: number, service: ServiceRef): Promise<void> {
    return this.claims.release(String(port), service);
  }

  allocations(): Promise<Claim[]> {
    return this.claims.list();
  }

  /** The node ports as {@link ServiceAllocationRepair} repairs them. */
  repaired(): RepairedAllocations {
    return {
      what: 'node port',
      heldBy: (service) => nodePortsOf(service).map(String),
      list: () => this.claims.list(),
      release: (port, service) => this.claims.release(port, service),
      restore: (port, service) => this.allocate(Number(port), service, 'spec.ports[*].nodePort'),
    };
  }
}

/**
 * The node ports a Service holds: its ports' and its health check's, whatever its type (validation
 * keeps them to the types that have them).
 */
export function nodePortsOf(service: KubeObject): number[] {
  const spec = service['spec'] as
    { ports?: Array<{ nodePort?: number }>; healthCheckNodePort?: number } | undefined;
  const ports = [...(spec?.ports ?? []).map((port) => port.nodePort), spec?.healthCheckNodePort];
  return [...new Set(ports.filter((port): port is number => typeof port === 'number' && port > 0))];
}

function nodePortObject(port: string, service: ServiceRef, created: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'NodePortAllocation',
    metadata: { name: port, creationTimestamp: created },
    ...parentRefTo(service),
  };
}
