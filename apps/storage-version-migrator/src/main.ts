#!/usr/bin/env node
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { LeaderElector, ResourceClient, RestClient, loadKubeconfig, type Lease } from '@kapi/client';
import { MigrationController, MigrationTrigger, type MigrationProgress, type StorageVersionMigration } from '@kapi/migrator';

const usage = `Usage: storage-version-migrator --kubeconfig <path> [flags]

Runs StorageVersionMigrations against the server of the kubeconfig, and (with --trigger) starts new ones
when a resource's StorageVersion changes.

Flags:
  --kubeconfig string   kubeconfig of a user allowed what the ClusterRole in README.md grants (required)
  --qps string          object writes per second (default "5"; 0 is unthrottled)
  --burst string        writes allowed at once after a pause (default "10")
  --workers string      migrations of different resources run at once (default "1")
  --trigger string      start migrations when StorageVersions change (default "true")
  --leader-elect string hold the kube-system/storage-version-migrator lease while running (default "true")
  --help                print this help`;

const log = (message: string) => console.log(`[storage-version-migrator] ${message}`);

/** A progress line per page: a bar on a terminal, plain counts otherwise. */
function printProgress(migration: StorageVersionMigration, progress: MigrationProgress): void {
  const done = progress.migratedObjects + progress.skippedObjects;
  const total = done + (progress.remainingObjects ?? 0);
  const name = migration.metadata.name ?? '';
  const counts = `${done}/${progress.remainingObjects === undefined ? '?' : total} (${progress.migratedObjects} migrated, ${progress.skippedObjects} skipped)`;
  if (!process.stdout.isTTY || progress.remainingObjects === undefined || total === 0) {
    log(`${name}: ${counts}`);
    return;
  }
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stdout.write(`\r${name} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${counts}${done === total ? '\n' : ''}`);
}

function main(): void {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      kubeconfig: { type: 'string' },
      qps: { type: 'string', default: '5' },
      burst: { type: 'string', default: '10' },
      workers: { type: 'string', default: '1' },
      trigger: { type: 'string', default: 'true' },
      'leader-elect': { type: 'string', default: 'true' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  if (!values.kubeconfig) {
    console.error(`error: --kubeconfig is required\n\n${usage}`);
    process.exit(2);
  }
  const number = (name: 'qps' | 'burst' | 'workers') => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < 0) {
      console.error(`error: --${name} must be a non-negative number`);
      process.exit(2);
    }
    return value;
  };
  const truthy = (value: string | undefined) => !['false', '0', 'no', 'off'].includes((value ?? '').toLowerCase());
  const rest = new RestClient({ ...loadKubeconfig(values.kubeconfig), userAgent: 'storage-version-migrator' });
  const qps = number('qps');
  const burst = number('burst');
  const workers = Math.max(1, number('workers'));

  let running: { controller: MigrationController; trigger?: MigrationTrigger } | undefined;
  const lead = () => {
    const controller = new MigrationController({
      rest,
      qps,
      burst,
      workers,
      observer: {
        onPage: printProgress,
        onFinished: (migration, outcome, message) => log(`${migration.metadata.name ?? ''}: ${outcome}: ${message}`),
        onRetry: (migration, error, delayMs) =>
          log(`${migration.metadata.name ?? ''}: retrying in ${delayMs} ms: ${error instanceof Error ? error.message : String(error)}`),
      },
    });
    controller.start();
    const trigger = truthy(values.trigger) ? new MigrationTrigger({ rest, log }) : undefined;
    void trigger?.start();
    running = { controller, ...(trigger ? { trigger } : {}) };
    log(`running (qps ${qps || 'unlimited'}, burst ${burst}, workers ${workers})`);
  };
  const stopRunning = async () => {
    const current = running;
    running = undefined;
    if (current) await Promise.all([current.controller.stop(), current.trigger?.stop()]);
  };

  const abort = new AbortController();
  let elected: Promise<void> = Promise.resolve();
  if (truthy(values['leader-elect'])) {
    const elector = new LeaderElector({
      leases: new ResourceClient<Lease>(rest, { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true }),
      namespace: 'kube-system',
      name: 'storage-version-migrator',
      identity: `${hostname()}_${randomUUID()}`,
      onStartedLeading: (signal) => {
        lead();
        signal.addEventListener('abort', () => void stopRunning(), { once: true });
      },
      onNewLeader: (identity) => log(`leader: ${identity}`),
    });
    elected = elector.run(abort.signal);
  } else {
    lead();
  }
  const stop = (signal: string) => {
    log(`${signal}: stopping (a running migration resumes from its last page)`);
    abort.abort();
    void elected
      .then(stopRunning)
      .then(() => {
        rest.close();
        process.exit(0);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main();
