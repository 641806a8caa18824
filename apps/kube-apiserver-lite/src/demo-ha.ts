/**
 * `npm run demo:ha`: etcd (Debian's, as the tests start it) and three kube-apiserver-lite replicas with
 * identity leases; prints the console URL and the kubeconfigs, then performs a rolling upgrade of HPA
 * storage from autoscaling/v1 to autoscaling/v2 step by step, printing what the StorageVersion says after
 * each step. Runs until Ctrl-C, then stops everything and removes its files.
 *
 * Environment: KAPI_DEMO_PORT (first replica's port, default 6443; the others take the next ones; 0: free
 * ports), KAPI_ETCD_BINARY (default /usr/bin/etcd).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient, loadKubeconfig, sleep } from '@kapi/client';
import { startEtcd } from '@kapi/storage-etcd3/testing';

const REPLICAS = 3;
const HPA_STORAGE_VERSION = '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions/autoscaling.horizontalpodautoscalers';
const mainScript = fileURLToPath(new URL('./main.ts', import.meta.url));
const say = (message: string): void => console.log(`[demo:ha] ${message}`);

interface Replica {
  name: string;
  dataDir: string;
  port: number;
  url: string;
  kubeconfig: string;
  child?: ChildProcess;
}

interface StorageVersionView {
  status?: {
    commonEncodingVersion?: string;
    storageVersions?: Array<{ apiServerID: string; encodingVersion: string }>;
    conditions?: Array<{ type: string; status: string; reason?: string }>;
  };
}

async function startReplica(replica: Replica, etcd: string, hpaVersion: string): Promise<void> {
  mkdirSync(replica.dataDir, { recursive: true, mode: 0o700 });
  const args = [
    '--conditions=@kapi/source', '--import', 'tsx', mainScript,
    '--storage=etcd', `--etcd-servers=${etcd}`, `--secure-port=${replica.port}`, `--data-dir=${replica.dataDir}`,
    `--hostname-override=${replica.name}`, `--storage-version=autoscaling/horizontalpodautoscalers=${hpaVersion}`,
    '--identity-lease-duration-seconds=30', '--identity-lease-renew-interval-seconds=2',
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1' } });
  replica.child = child;
  const log = createWriteStream(join(replica.dataDir, 'server.log'), { flags: 'a' });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    log.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    const serving = /serving on (https:\/\/\S+)/.exec(output);
    const kubeconfig = /admin kubeconfig: (\S+)/.exec(output);
    if (serving?.[1] && kubeconfig?.[1]) {
      replica.url = serving[1];
      replica.port = Number(new URL(serving[1]).port);
      replica.kubeconfig = kubeconfig[1];
      break;
    }
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${replica.name} did not start; see ${join(replica.dataDir, 'server.log')}`);
  }
  const client = new RestClient(loadKubeconfig(replica.kubeconfig));
  try {
    for (;;) {
      const ready = await client.raw({ method: 'GET', path: '/readyz' }).catch(() => undefined);
      if (ready?.statusCode === 200) break;
      await sleep(200);
    }
  } finally {
    client.close();
  }
  say(`${replica.name} (pid ${child.pid ?? '?'}) ready at ${replica.url}, storing HPAs as ${hpaVersion}`);
}

async function stopReplica(replica: Replica): Promise<void> {
  const child = replica.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}

async function describeStorageVersion(client: RestClient): Promise<StorageVersionView> {
  return client.request<StorageVersionView>({ method: 'GET', path: HPA_STORAGE_VERSION });
}

function printStorageVersion(view: StorageVersionView, names: Map<string, string>): void {
  const status = view.status ?? {};
  for (const entry of status.storageVersions ?? []) {
    say(`    ${names.get(entry.apiServerID) ?? entry.apiServerID} encodes ${entry.encodingVersion}`);
  }
  const condition = status.conditions?.find((c) => c.type === 'AllEncodingVersionsEqual');
  say(`    commonEncodingVersion: ${status.commonEncodingVersion ?? '(none: the servers disagree)'}; AllEncodingVersionsEqual=${condition?.status ?? '?'} (${condition?.reason ?? ''})`);
}

async function main(): Promise<void> {
  const base = Number(process.env['KAPI_DEMO_PORT'] ?? 6443);
  const root = mkdtempSync(join(tmpdir(), 'kapi-demo-ha-'));
  const replicas: Replica[] = Array.from({ length: REPLICAS }, (_, index) => ({
    name: `replica-${index + 1}`,
    dataDir: join(root, `replica-${index + 1}`),
    port: base === 0 ? 0 : base + index,
    url: '',
    kubeconfig: '',
  }));
  let etcd: Awaited<ReturnType<typeof startEtcd>> | undefined;
  let stopping = false;
  const stopAll = async (signal: string, code = 0): Promise<void> => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping the replicas and etcd`);
    await Promise.all(replicas.map((replica) => stopReplica(replica)));
    await etcd?.stop();
    rmSync(root, { recursive: true, force: true });
    say(`stopped; removed ${root}`);
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll('SIGINT'));
  process.on('SIGTERM', () => void stopAll('SIGTERM'));
  failed = (error) => {
    console.error(`[demo:ha] failed: ${error instanceof Error ? error.message : String(error)}`);
    void stopAll('error', 1);
  };

  say(`files under ${root}`);
  etcd = await startEtcd({ progressNotifyIntervalMs: 1000 });
  say(`etcd serving at ${etcd.endpoint}`);
  for (const replica of replicas) await startReplica(replica, etcd.endpoint, 'autoscaling/v1');
  const first = replicas[0] as Replica;
  say('');
  say('What to look at:');
  say(`  console:    kubectl --kubeconfig ${first.kubeconfig} proxy --port=8001, then open http://127.0.0.1:8001/console/`);
  say(`              (or ${first.url}/console/ with the admin client certificate)`);
  for (const replica of replicas) say(`  kubeconfig: ${replica.kubeconfig}  (${replica.name})`);
  say(`  e.g.:       kubectl --kubeconfig ${first.kubeconfig} get leases -n kube-system`);
  say('');

  const admin = new RestClient(loadKubeconfig(first.kubeconfig));
  for (let i = 1; i <= 3; i++) {
    await admin.raw({
      method: 'POST',
      path: '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers',
      body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: `demo-${i}` }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `demo-${i}` }, maxReplicas: i } },
    });
  }
  say('created 3 HPAs; the StorageVersion of horizontalpodautoscalers.autoscaling says:');
  const names = new Map<string, string>();
  const leases = await admin.request<{ items: Array<{ metadata: { name: string; labels?: Record<string, string> }; spec?: { holderIdentity?: string } }> }>({
    method: 'GET',
    path: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases',
  });
  for (const lease of leases.items) {
    const host = lease.metadata.labels?.['kubernetes.io/hostname'];
    if (host) names.set(lease.metadata.name, host);
  }
  printStorageVersion(await describeStorageVersion(admin), names);
  admin.close();

  for (const [index, replica] of replicas.entries()) {
    if (stopping) return;
    say('');
    say(`step ${index + 1}/${REPLICAS}: restarting ${replica.name} to store HPAs as autoscaling/v2`);
    await stopReplica(replica);
    await startReplica(replica, etcd.endpoint, 'autoscaling/v2');
    const client = new RestClient(loadKubeconfig(replica.kubeconfig));
    let view = await describeStorageVersion(client);
    for (let waited = 0; waited < 10_000; waited += 200) {
      const mine = view.status?.storageVersions?.filter((entry) => names.get(entry.apiServerID) === replica.name) ?? [];
      if (mine.some((entry) => entry.encodingVersion === 'autoscaling/v2')) break;
      await sleep(200);
      view = await describeStorageVersion(client);
    }
    client.close();
    say(`  the StorageVersion says:`);
    printStorageVersion(view, names);
  }
  say('');
  say('rolling upgrade done: every replica encodes HPAs as autoscaling/v2 (the migrator rewrites the stored ones).');
  say('the cluster keeps running; press Ctrl-C to stop it and clean up.');
}

let failed = (error: unknown): void => {
  console.error(`[demo:ha] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
};
main().catch((error: unknown) => failed(error));
