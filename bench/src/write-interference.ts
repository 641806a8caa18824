import { performance } from 'node:perf_hooks';
import { sleep } from '@kapi/client';
import type { KVBackend } from '@kapi/storage';
import { Etcd3 } from 'etcd3';
import { percentile } from './harness.js';
import { StallCanary, steadyP99, type SteadyP99, type TimedSample } from './stall-canary.js';

/**
 * A raw store as the migrator's foreground control uses it: small foreground puts, and the rewrites a
 * migration makes (a write conditioned on the key's revision).
 */
export interface InterferenceTarget {
  /** Writes `value` at `key` (a foreground put). */
  put(key: string, value: Buffer): Promise<void>;
  /** Writes `key` once; returns its rewrite with `value` (conditioned on the revision it last wrote). */
  seed(key: string, value: Buffer): Promise<() => Promise<void>>;
  close(): Promise<void> | void;
}

/** etcd through the raw etcd3 client: puts, and txns that compare the key's mod_revision and put. */
export function etcdTarget(endpoint: string): InterferenceTarget {
  const foreground = new Etcd3({ hosts: endpoint });
  const background = new Etcd3({ hosts: endpoint });
  return {
    put: async (key, value) => void (await foreground.put(key).value(value).exec()),
    seed: async (key, value) => {
      let revision = (await background.put(key).value(value).exec()).header.revision;
      return async () => {
        const txn = await background.if(key, 'Mod', '==', revision).then(background.put(key).value(value)).commit();
        revision = txn.header.revision;
      };
    },
    close: () => {
      foreground.close();
      background.close();
    },
  };
}

/**
 * A raw KV backend (SQLite). A foreground put replaces the key whatever its revision (re-reading it when
 * another put got there first, as an update without a resourceVersion does); a rewrite is conditioned on
 * the revision it last wrote, and one that meets a newer revision only learns it.
 */
export function kvTarget(kv: KVBackend): InterferenceTarget {
  const revisions = new Map<string, number>();
  const write = async (key: string, value: Buffer) => {
    const known = revisions.get(key);
    const result = known === undefined ? await kv.create(key, value) : await kv.update(key, value, known);
    if (result.succeeded) revisions.set(key, result.revision);
    else {
      // Retried at the key's current revision, or created again when it is gone.
      const current = await kv.get(key);
      if (current.entry) revisions.set(key, current.entry.modRevision);
      else revisions.delete(key);
    }
    return result.succeeded;
  };
  return {
    put: async (key, value) => {
      while (!(await write(key, value))) {
        // Another put of the key came first: written again at the revision just read.
      }
    },
    seed: async (key, value) => {
      await write(key, value);
      return async () => void (await write(key, value));
    },
    close: () => kv.close(),
  };
}

/**
 * The control of the migrator's foreground row: what `backgroundQps` writes a second of 2 KB values (a
 * migration's rewrites, conditioned on the key's revision) do to the p99 of other writes on the same raw
 * store (etcd, or the SQLite backend on the same disk), without any apiserver. Open-loop puts of a small
 * value every `intervalMs` on 4 keys, in alternating phases without and with the background writer, as
 * the subject's phases are. Every write shares the store's log (etcd's WAL, SQLite's commits): one that
 * arrives while another batch is being fsynced waits for that fsync and then its own. Closes `target`.
 */
export async function writeInterference(
  target: InterferenceTarget,
  options: { phases: number; seconds: number; intervalMs: number; backgroundQps: number },
): Promise<{ idle: number; during: number; samples: number; steady: SteadyP99 }> {
  const prefix = `/interference-control/${Date.now()}/`;
  const value = Buffer.alloc(2048, 'x');
  const idle: TimedSample[] = [];
  const during: TimedSample[] = [];
  const canary = new StallCanary();
  try {
    // The background's keys (and the foreground's) exist first, so that its writes rewrite as a migration does.
    const rewrites: Array<() => Promise<void>> = [];
    for (let index = 0; index < 500; index++) rewrites.push(await target.seed(`${prefix}bg-${index}`, value));
    for (let index = 0; index < 4; index++) await target.put(`${prefix}fg-${index}`, Buffer.from('{}'));
    for (let phase = 0; phase < options.phases; phase++) {
      idle.push(...(await writePhase()));
      let writing = true;
      const writer = (async () => {
        for (let sent = 0; writing; sent++) {
          void rewrites[sent % rewrites.length]?.().catch(() => undefined);
          await sleep(1000 / options.backgroundQps);
        }
      })();
      during.push(...(await writePhase()));
      writing = false;
      await writer;
    }
    const p99 = (samples: TimedSample[]) => percentile(samples.map((sample) => sample.latency), 99);
    return { idle: p99(idle), during: p99(during), samples: Math.min(idle.length, during.length), steady: steadyP99(idle, during, await canary.stalls(), 'writing puts') };
  } finally {
    canary.stop();
    await target.close();
  }

  /** One phase of open-loop foreground puts: when each was sent and its latency (ms). */
  async function writePhase(): Promise<TimedSample[]> {
    const latencies: TimedSample[] = [];
    const writes: Array<Promise<void>> = [];
    for (let sent = 0; sent < (options.seconds * 1000) / options.intervalMs; sent++) {
      const started = performance.now();
      writes.push(
        target
          .put(`${prefix}fg-${sent % 4}`, Buffer.from(`{"at":"${sent}"}`))
          .then(() => void latencies.push({ sentAtEpoch: performance.timeOrigin + started, latency: performance.now() - started })),
      );
      await sleep(options.intervalMs);
    }
    await Promise.all(writes);
    return latencies;
  }
}
