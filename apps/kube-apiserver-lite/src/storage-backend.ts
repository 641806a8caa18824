import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { withCheckTimeout, type HealthCheck } from '@kapi/server';
import type { KVBackend } from '@kapi/storage';
import { MemoryBackend } from '@kapi/storage-memory';
import { SqliteBackend, type SqliteBackendStats } from '@kapi/storage-sqlite';
import type { ServerOptions } from './options.js';

/** The shared backend of every resource, and what stops it. */
export interface StorageBackend {
  kv: KVBackend;
  describe: string;
  /** The storage's health check for /healthz, /livez and /readyz (upstream's `etcd` check); none in memory. */
  healthCheck?: { name: string; check: HealthCheck };
  /** The embedded SQLite store's write counters (SQLite only). */
  sqliteStats?: () => SqliteBackendStats;
  close(): Promise<void>;
}

/** How long the etcd health check waits (upstream's --etcd-healthcheck-timeout default). */
const etcdHealthTimeoutMs = 2000;

/**
 * Compacts an embedded store every interval to the revision seen one interval earlier (as the etcd
 * compactor does), so history stays bounded.
 */
function startLocalCompactor(kv: KVBackend, intervalMs: number): { stop(): void } {
  let previous = 0;
  const timer = setInterval(() => {
    void (async () => {
      const current = await kv.currentRevision();
      if (previous > 0) await kv.compact(previous).catch(() => undefined);
      previous = current;
    })();
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Opens the backend chosen by `--storage`. */
export async function openStorageBackend(options: ServerOptions): Promise<StorageBackend> {
  const compactionMs = options.etcdCompactionIntervalMs;
  if (options.storage === 'etcd') {
    // Loaded only for etcd: the client (etcd3, gRPC, protobufjs) costs ~0.4 s of CPU at startup.
    const { Etcd3Backend, startCompactor } = await import('@kapi/storage-etcd3');
    const kv = await Etcd3Backend.connect({ endpoints: options.etcdServers });
    const compactor = compactionMs > 0 ? startCompactor({ backend: kv, intervalMs: compactionMs }) : undefined;
    return {
      kv,
      describe: `etcd at ${options.etcdServers.join(',')}`,
      healthCheck: { name: 'etcd', check: withCheckTimeout('etcd', async () => {
        await kv.currentRevision();
      }, etcdHealthTimeoutMs) },
      close: async () => {
        await compactor?.stop();
        await kv.close();
      },
    };
  }
  const kv =
    options.storage === 'memory'
      ? new MemoryBackend({ progressNotifyIntervalMs: options.progressNotifyIntervalMs })
      : await SqliteBackend.open({
          path: (mkdirSync(options.dataDir, { recursive: true }), join(options.dataDir, 'kapi.db')),
          progressNotifyIntervalMs: options.progressNotifyIntervalMs,
          exclusive: options.sqliteMode === 'exclusive',
          writerThread: options.sqliteMode === 'writer-thread',
        }).catch((error: unknown) => {
          // Another server on the same --data-dir: say how to share it (or to pick another directory).
          const message = error instanceof Error ? error.message : String(error);
          if (!message.includes('is locked by another process')) throw error;
          throw new Error(
            `${message}. Is another kube-apiserver-lite running with --data-dir=${options.dataDir}? ` +
              'Use another --data-dir, or run every server on this file with --sqlite-mode=writer-thread or shared.',
            { cause: error },
          );
        });
  const compactor = compactionMs > 0 ? startLocalCompactor(kv, compactionMs) : undefined;
  return {
    kv,
    describe: options.storage === 'memory' ? 'in-memory store' : `SQLite at ${join(options.dataDir, 'kapi.db')} (${options.sqliteMode})`,
    ...(kv instanceof SqliteBackend
      ? { sqliteStats: () => kv.stats, healthCheck: { name: 'sqlite', check: () => kv.checkHealth() } }
      : {}),
    close: async () => {
      compactor?.stop();
      await kv.close();
    },
  };
}
