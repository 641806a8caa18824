import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { ResourceClient, type RestClient } from '@kapi/client';
import type { GenericAPIServer, ResourceDefinition } from '@kapi/server';
import { Store, type Interface, type KVBackend } from '@kapi/storage';
import { ensureObject, whileStarting } from './bootstrap.js';
import { NodePortAllocator, type NodePortRange } from './node-port-allocator.js';
import { ServiceAllocationRepair } from './service-allocation-repair.js';
import { serviceAllocationStrategy, type ServiceAllocators } from './service-allocation-strategy.js';
import { ServiceIPAllocator } from './service-ip-allocator.js';
import { firstServiceIP, type ServiceIPRange } from './service-ip-range.js';

/**
 * The allocators of Services' cluster IPs (`<keyPrefix>/ipaddresses/`) and node ports
 * (`<keyPrefix>/servicenodeports/`) on `kv`; `services` gives the Services' storage once installed.
 */
export function createServiceAllocators(
  kv: KVBackend,
  keyPrefix: string,
  ranges: { serviceClusterIPRange: ServiceIPRange; serviceNodePortRange: NodePortRange },
  services: () => { storage: Interface; prefix: string } | undefined,
): ServiceAllocators {
  return {
    clusterIPs: new ServiceIPAllocator(
      new Store({ kv }),
      `${keyPrefix}/ipaddresses`,
      ranges.serviceClusterIPRange,
    ),
    nodePorts: new NodePortAllocator(
      new Store({ kv }),
      `${keyPrefix}/servicenodeports`,
      ranges.serviceNodePortRange,
    ),
    stored: async (namespace, name) => {
      const installed = services();
      return installed?.storage.get(`${installed.prefix}/${namespace}/${name}`, { ignoreNotFound: true });
    },
    exists: async (namespace, name) => {
      const installed = services();
      return Boolean(
        installed &&
        (await installed.storage.get(`${installed.prefix}/${namespace}/${name}`, {
          resourceVersion: '0',
          ignoreNotFound: true,
        })),
      );
    },
  };
}

/** `definitions` with core v1 Services' cluster IPs and node ports allocated from `allocators`. */
export function withServiceAllocations(
  definitions: ResourceDefinition[],
  allocators: ServiceAllocators,
): ResourceDefinition[] {
  return definitions.map((definition) =>
    definition.group === '' && definition.resource === 'services'
      ? { ...definition, strategy: serviceAllocationStrategy(definition.strategy, allocators) }
      : definition,
  );
}

const services = { group: '', version: 'v1', resource: 'services', namespaced: true };
const endpointSlices = {
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
  namespaced: true,
};

/** What the service IP hooks need of the control plane. */
export interface ServiceHooksContext {
  allocators: ServiceAllocators;
  /** The services' storage (the watch cache) and its key prefix, once installed. */
  servicesStorage: () => { storage: Interface; prefix: string } | undefined;
  rest: () => RestClient;
  /** The address this server serves on; a wildcard one is advertised as 127.0.0.1 in the `kubernetes` endpoints. */
  bindAddress: string;
  /** Resolves once the `default` namespace exists. */
  systemNamespaces: Promise<void>;
  controllers: Array<() => Promise<void> | void>;
  /** How often a deleted `kubernetes` Service, EndpointSlice or Endpoints is made again (default {@link KUBERNETES_SERVICE_INTERVAL_MS}). */
  kubernetesServiceIntervalMs?: number;
  log: (message: string) => void;
}

/**
 * Upstream's post-start hooks around Services: `start-service-ip-repair-controllers` (the
 * {@link ServiceAllocationRepair} of cluster IPs and node ports) and `bootstrap-controller` (the `kubernetes` Service in
 * `default` on the range's first address, with an EndpointSlice naming this server; made again when deleted).
 */
export function addServiceHooks(server: GenericAPIServer, context: ServiceHooksContext): void {
  server.addPostStartHook('start-service-ip-repair-controllers', async () => {
    const installed = context.servicesStorage();
    if (!installed) throw new Error('services are not installed');
    const { clusterIPs, nodePorts } = context.allocators;
    const repair = new ServiceAllocationRepair({
      kinds: [clusterIPs.repaired(), nodePorts.repaired()],
      services: installed.storage,
      servicesPrefix: installed.prefix,
      log: context.log,
    });
    context.controllers.push(() => repair.stop());
    await repair.start();
  });
  server.addPostStartHook('bootstrap-controller', async ({ signal }) => {
    await context.systemNamespaces;
    const port = Number(new URL(server.loopbackClient.url).port);
    const address = context.bindAddress === '0.0.0.0' ? '127.0.0.1' : context.bindAddress;
    const objects = kubernetesServiceObjects(
      context.rest(),
      firstServiceIP(context.allocators.clusterIPs.range),
      address,
      port,
    );
    for (const [client, object] of objects) {
      await ensureObject(client, 'default', object, signal);
      // Without a resourceVersion: last write wins, and an unchanged object is not written again.
      await whileStarting(() => client.update('default', object), signal);
    }
    // As upstream's bootstrap controller after the first pass: what was deleted is made again; what
    // exists is left as it is (another replica may have set the endpoints since).
    const timer = setInterval(() => {
      void (async () => {
        for (const [client, object] of objects) {
          await client.create('default', object).then(
            () => context.log(`bootstrap-controller: re-created ${object.kind} default/kubernetes`),
            (error: unknown) => {
              if (!(StatusError.isInstance(error) && error.code === 409))
                context.log(`bootstrap-controller: ${object.kind} default/kubernetes: ${String(error)}`);
            },
          );
        }
      })();
    }, context.kubernetesServiceIntervalMs ?? KUBERNETES_SERVICE_INTERVAL_MS);
    timer.unref();
    context.controllers.push(() => clearInterval(timer));
  });
}

/** How often the bootstrap controller makes the `kubernetes` Service and its endpoints again when deleted (upstream's EndpointInterval). */
export const KUBERNETES_SERVICE_INTERVAL_MS = 10_000;

/**
 * The `default/kubernetes` Service (ClusterIP on `clusterIP`, port 443 to the secure port) and its
 * EndpointSlice and (legacy) Endpoints naming this server, each with the client that writes it, as
 * upstream's bootstrap controller keeps them: made when missing, set again on each start (the port may
 * have changed; with several replicas the last started wins).
 */
export function kubernetesServiceObjects(
  rest: RestClient,
  clusterIP: string,
  address: string,
  port: number,
): Array<readonly [ResourceClient, KubeObject]> {
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'kubernetes',
      namespace: 'default',
      labels: { component: 'apiserver', provider: 'kubernetes' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP,
      sessionAffinity: 'None',
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }],
    },
  };
  const slice: KubeObject = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: 'kubernetes',
      namespace: 'default',
      labels: { 'kubernetes.io/service-name': 'kubernetes' },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
    ports: [{ name: 'https', protocol: 'TCP', port }],
  };
  const endpoints: KubeObject = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: {
      name: 'kubernetes',
      namespace: 'default',
      labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' },
    },
    subsets: [{ addresses: [{ ip: address }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
  };
  return [
    [new ResourceClient(rest, services), service],
    [new ResourceClient(rest, endpointSlices), slice],
    [
      new ResourceClient(rest, { group: '', version: 'v1', resource: 'endpoints', namespaced: true }),
      endpoints,
    ],
  ];
}
