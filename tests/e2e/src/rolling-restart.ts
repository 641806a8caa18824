import * as k8s from '@kubernetes/client-node';
import { Informer, ResourceClient, RestClient, loadKubeconfig, sleep } from '@kapi/client';
import { freePort, startServer, waitReady, type StartServerOptions, type TestServer } from './harness.js';

/** What each watching client went through during the rolling restart. */
export interface RollingRestartReport {
  /** Summed over the Reflectors (one per replica); the lowest last resourceVersion among them. */
  reflector: { relists: number; expired: number; lastSyncResourceVersion: number };
  /** Summed over the client-node informers (one per replica); the lowest last resourceVersion among them. */
  clientNode: { relists: number; expired: number; lastResourceVersion: number };
  /**
   * Per replica, how many watches each client opened through it (client-node: its `connect` events). A
   * restarted replica shows 2 or more for both: a watch before its restart and one re-established after.
   */
  watchesPerReplica: Array<{ reflector: number; clientNode: number }>;
  /** resourceVersion of the last write to resource B before the last replica restarted. */
  lastWriteBeforeLastRestart: number;
  /**
   * resourceVersion of a config map written to resource A after the restarts; both clients' last
   * resourceVersion reaches it when their watches are alive and current.
   */
  finalWrite: number;
  writes: number;
}

/** Options of {@link runRollingRestart}. */
export interface RollingRestartOptions {
  /** Flags for every replica (storage selection etc.). */
  args: (replica: number) => string[];
  replicas: number;
  /** Replicas to restart, in order (indexes into the replicas). */
  restart: number[];
  /** Index of the replica resource A is written through (the clients watch through every replica). */
  watchVia: number;
  /** Index of the replica resource B is written through. */
  writeVia: number;
  /** Keep each replica's data dir across restarts (SQLite). */
  dataDirs?: string[];
}

/**
 * The KEP-1904 scenario: resource A (configmaps in an idle namespace) is watched through every replica by
 * @kapi/client's Reflector (bookmarks) and by @kubernetes/client-node's makeInformer (no bookmarks; resumes from
 * the last event it saw); resource B (secrets) is written continuously through another replica; the replicas are
 * restarted one after another, each time waiting for readiness.
 */
export async function runRollingRestart(options: RollingRestartOptions): Promise<RollingRestartReport> {
  const ports = await Promise.all(Array.from({ length: options.replicas }, () => freePort()));
  const serverOptions = (replica: number): StartServerOptions => ({
    port: ports[replica] as number,
    args: options.args(replica),
    keepDataDir: true,
    ...(options.dataDirs?.[replica] ? { dataDir: options.dataDirs[replica] } : {}),
  });
  const servers: TestServer[] = [];
  for (let replica = 0; replica < options.replicas; replica++)
    servers.push(await startServer(serverOptions(replica)));
  const watchServer = servers[options.watchVia] as TestServer;
  const admin = new RestClient(loadKubeconfig(watchServer.kubeconfig));
  const namespaces = new ResourceClient(admin, {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    namespaced: false,
  });
  await namespaces
    .create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'idle' } })
    .catch(() => undefined);
  await namespaces
    .create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'busy' } })
    .catch(() => undefined);
  const configMaps = new ResourceClient(admin, {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    namespaced: true,
  });
  for (let i = 0; i < 3; i++)
    await configMaps
      .create('idle', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `a-${i}` } })
      .catch(() => undefined);

  // Client 1: our Reflector (bookmarks on), one through each replica, so every restart ends some watch.
  const watchClients = servers.map((server) => new RestClient(loadKubeconfig(server.kubeconfig)));
  const informers = watchClients.map(
    (client) =>
      new Informer(new ResourceClient(client, { group: '', version: 'v1', resource: 'configmaps', namespaced: true }), {
        namespace: 'idle',
        retryDelayMs: 200,
      }),
  );
  for (const informer of informers) informer.start();
  await Promise.all(informers.map((informer) => informer.waitForSync()));
  const informersVersion = () => Math.min(...informers.map((informer) => Number(informer.lastSyncResourceVersion)));

  // Client 2: @kubernetes/client-node's makeInformer, one through each replica too; restarted from its error
  // handler as its docs recommend.
  let running = true;
  const nodeInformers = servers.map((server) => startClientNodeInformer(server.kubeconfig, () => running));
  await Promise.all(nodeInformers.map((node) => node.informer.start()));
  // A 410 makes the informer clear its resourceVersion and relist, so its relist count also counts its 410s.
  // Writer of resource B through the write replica (it follows that replica across its own restart).
  let writes = 0;
  let lastWrite = 0;
  let writing = true;
  const writer = (async () => {
    let client = new RestClient(loadKubeconfig((servers[options.writeVia] as TestServer).kubeconfig));
    let secrets = new ResourceClient(client, {
      group: '',
      version: 'v1',
      resource: 'secrets',
      namespaced: true,
    });
    let kubeconfig = (servers[options.writeVia] as TestServer).kubeconfig;
    while (writing) {
      const current = (servers[options.writeVia] as TestServer).kubeconfig;
      if (current !== kubeconfig) {
        client.close();
        kubeconfig = current;
        client = new RestClient(loadKubeconfig(current));
        secrets = new ResourceClient(client, {
          group: '',
          version: 'v1',
          resource: 'secrets',
          namespaced: true,
        });
      }
      try {
        const created = await secrets.create('busy', {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { generateName: 'b-' },
          stringData: { n: String(writes) },
        });
        writes++;
        lastWrite = Math.max(lastWrite, Number(created.metadata.resourceVersion));
      } catch {
        // the replica is restarting
      }
      await sleep(50);
    }
    client.close();
  })();

  let lastWriteBeforeLastRestart = 0;
  let finalWrite = 0;
  try {
    await sleep(2500);
    for (const [index, replica] of options.restart.entries()) {
      if (index === options.restart.length - 1) lastWriteBeforeLastRestart = lastWrite;
      await (servers[replica] as TestServer).stop();
      const restarted = await startServer({
        ...serverOptions(replica),
        dataDir: (servers[replica] as TestServer).dataDir,
      });
      servers[replica] = restarted;
      await waitReady(restarted);
      await sleep(2500);
    }
    // Give both clients time to re-establish their watches and receive bookmarks.
    await sleep(4000);
    const final = await configMaps.create('idle', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'final-' } });
    finalWrite = Number(final.metadata.resourceVersion);
    const nodeVersion = () => Math.min(...nodeInformers.map((node) => node.lastResourceVersion()));
    for (let waited = 0; waited < 10_000; waited += 100) {
      if (informersVersion() >= finalWrite && nodeVersion() >= finalWrite) break;
      await sleep(100);
    }
  } finally {
    writing = false;
    running = false;
    await writer;
    for (const informer of informers) await informer.stop();
    for (const client of watchClients) client.close();
    for (const node of nodeInformers) await node.informer.stop();
    admin.close();
    for (const server of servers) await server.stop();
  }
  return {
    reflector: {
      relists: informers.reduce((sum, informer) => sum + informer.stats.relists, 0),
      expired: informers.reduce((sum, informer) => sum + informer.stats.expired, 0),
      lastSyncResourceVersion: informersVersion(),
    },
    clientNode: {
      relists: nodeInformers.reduce((sum, node) => sum + Math.max(0, node.lists - 1), 0),
      expired: nodeInformers.reduce((sum, node) => sum + node.expired, 0),
      lastResourceVersion: Math.min(...nodeInformers.map((node) => node.lastResourceVersion())),
    },
    watchesPerReplica: informers.map((informer, replica) => ({
      reflector: informer.stats.watches,
      clientNode: nodeInformers[replica]?.connects ?? 0,
    })),
    lastWriteBeforeLastRestart,
    finalWrite,
    writes,
  };
}

/** A client-node informer on the idle namespace's config maps through one replica, with its counters. */
function startClientNodeInformer(kubeconfig: string, running: () => boolean) {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const counts = { lists: 0, expired: 0, connects: 0 };
  const informer = k8s.makeInformer(kc, '/api/v1/namespaces/idle/configmaps', () => {
    counts.lists++;
    return core.listNamespacedConfigMap({ namespace: 'idle' });
  });
  informer.on('connect', () => counts.connects++);
  informer.on('error', (error: unknown) => {
    if ((error as { code?: number }).code === 410 || (error as { statusCode?: number }).statusCode === 410) counts.expired++;
    if (running()) setTimeout(() => void informer.start().catch(() => undefined), 300);
  });
  const lastResourceVersion = () =>
    Number((informer as unknown as { latestResourceVersion(): string }).latestResourceVersion());
  return {
    informer,
    lastResourceVersion,
    get lists() {
      return counts.lists;
    },
    get expired() {
      return counts.expired;
    },
    get connects() {
      return counts.connects;
    },
  };
}
