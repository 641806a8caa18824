#!/usr/bin/env node
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { LeaderElector, ResourceClient, RestClient, loadKubeconfig, type Lease } from '@kapi/client';
import { MigrationController, MigrationTrigger, type MigrationProgress, type StorageVersionMigration } from '@kapi/migrator';
import { missingPermissions, requiredPermissions } from './permissions.js';

const usage = `Usage: storage-version-migrator --kubeconfig <path> [flags]

Runs StorageVersionMigrations against the server of the kubeconfig, and (with --trigger) starts new ones
when a resource's StorageVersion changes.

Flags:
  --kubeconfig string        kubeconfig of a user bound to system:controller:storage-version-migrator-controller (required)
  --qps string               object writes per second (default "5"; 0 is unthrottled)
  --burst string             writes allowed at once after a pause (default "10")
  --workers string           migrations of different resources run at once (default "1")
  --page-size string         objects listed (and progress saved) per page (default "500"; with --qps,
                             at most about a quarter second of writes, at least 10)
  --writes-in-flight string  object writes of a page at once, within --qps (default "1")
  --trigger string           start migrations when StorageVersions change (default "true")
  --leader-elect string      hold the kube-system/storage-version-migrator lease while running (default "true")
  --help                     print this help`;

const log = (message: string) => console.log(`[storage-version-migrator] ${message}`);

/** A progress line per page: a bar on a terminal, plain counts and percent otherwise. */
function printProgress(migration: StorageVersionMigration, progress: MigrationProgress): void {
  const done = progress.migratedObjects + progress.skippedObjects;
  const total = done + (progress.remainingObjects ?? 0);
  const name = migration.metadata.name ?? '';
  const percent = progress.percent === undefined ? '' : ` ${progress.percent}%`;
  const counts = `${done}/${progress.remainingObjects === undefined ? '?' : total}${percent} (${progress.migratedObjects} migrated, ${progress.skippedObjects} skipped)`;
  if (!process.stdout.isTTY || progress.remainingObjects === undefined || total === 0) {
    log(`${name}: ${counts}`);
    return;
  }
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stdout.write(`\r${name} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${counts}${done === total ? '\n' : ''}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      kubeconfig: { type: 'string' },
      qps: { type: 'string', default: '5' },
      burst: { type: 'string', default: '10' },
      workers: { type: 'string', default: '1' },
      'page-size': { type: 'string', default: '500' },
      'writes-in-flight': { type: 'string', default: '1' },
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
  const number = (name: 'qps' | 'burst' | 'workers' | 'page-size' | 'writes-in-flight') => {
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
  const pageSize = Math.max(1, number('page-size'));
  const writesInFlight = Math.max(1, number('writes-in-flight'));
  const trigger = truthy(values.trigger);
  const leaderElect = truthy(values['leader-elect']);
  const missing = await missingPermissions(rest, requiredPermissions({ trigger, leaderElect }));
  if (missing.length > 0) {
    console.error(
      `error: the migrator's user may not ${missing.join(', ')}; bind it to the ClusterRole ` +
        `system:controller:storage-version-migrator-controller (see README.md)`,
    );
    rest.close();
    process.exit(1);
  }

  let running: { controller: MigrationController; trigger?: MigrationTrigger } | undefined;
  const lead = () => {
    const controller = new MigrationController({
      rest,
      qps,
      burst,
      workers,
      pageSize,
      writesInFlight,
      observer: {
        onPage: printProgress,
        onFinished: (migration, outcome, message) => log(`${migration.metadata.name ?? ''}: ${outcome}: ${message}`),
        onRetry: (migration, error, delayMs) =>
          log(`${migration.metadata.name ?? ''}: retrying in ${delayMs} ms: ${error instanceof Error ? error.message : String(error)}`),
      },
    });
    controller.start();
    const migrationTrigger = trigger ? new MigrationTrigger({ rest, log }) : undefined;
    void migrationTrigger?.start();
    running = { controller, ...(migrationTrigger ? { trigger: migrationTrigger } : {}) };
    log(`running (qps ${qps || 'unlimited'}, burst ${burst}, workers ${workers}, page size ${pageSize}, writes in flight ${writesInFlight})`);
  };
  const stopRunning = async () => {
    const current = running;
    running = undefined;
    if (current) await Promise.all([current.controller.stop(), current.trigger?.stop()]);
  };

  const abort = new AbortController();
  let elected: Promise<void> = Promise.resolve();
  if (leaderElect) {
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

main().catch((error: unknown) => {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
