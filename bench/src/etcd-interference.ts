import { performance } from 'node:perf_hooks';
import { sleep } from '@kapi/client';
import { Etcd3 } from 'etcd3';
import { percentile } from './harness.js';
import { StallCanary, steadyP99, type SteadyP99, type TimedSample } from './stall-canary.js';

/**
 * The etcd control of the migrator's foreground row: what `backgroundQps` writes a second of 2 KB values
 * (a migration's rewrites: txn put with a mod-revision compare) do to the p99 of other writes on the same
 * etcd, without any apiserver. Open-loop puts of a small value every `intervalMs` on 4 keys, in alternating
 * phases without and with the background writer, as the subject's phases are. Every write shares etcd's
 * WAL: one that arrives while another batch is being fsynced waits for that fsync and then its own.
 */
export async function etcdWriteInterference(
  endpoint: string,
  options: { phases: number; seconds: number; intervalMs: number; backgroundQps: number },
): Promise<{ idle: number; during: number; samples: number; steady: SteadyP99 }> {
  const foreground = new Etcd3({ hosts: endpoint });
  const background = new Etcd3({ hosts: endpoint });
  const prefix = `/interference-control/${Date.now()}/`;
  const value = Buffer.alloc(2048, 'x');
  const idle: TimedSample[] = [];
  const during: TimedSample[] = [];
  const canary = new StallCanary();
  try {
    // The background's keys exist first, so that its txns rewrite as a migration does.
    const revisions: string[] = [];
    for (let index = 0; index < 500; index++) revisions[index] = (await background.put(`${prefix}bg-${index}`).value(value).exec()).header.revision;
    for (let phase = 0; phase < options.phases; phase++) {
      idle.push(...(await writePhase()));
      let writing = true;
      const writer = (async () => {
        for (let sent = 0; writing; sent++) {
          const index = sent % revisions.length;
          const key = `${prefix}bg-${index}`;
          void background
            .if(key, 'Mod', '==', revisions[index] ?? '0')
            .then(background.put(key).value(value))
            .commit()
            .then((txn) => {
              revisions[index] = txn.header.revision;
            });
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
    foreground.close();
    background.close();
  }

  /** One phase of open-loop foreground puts: when each was sent and its latency (ms). */
  async function writePhase(): Promise<TimedSample[]> {
    const latencies: TimedSample[] = [];
    const writes: Array<Promise<void>> = [];
    for (let sent = 0; sent < (options.seconds * 1000) / options.intervalMs; sent++) {
      const started = performance.now();
      writes.push(
        foreground
          .put(`${prefix}fg-${sent % 4}`)
          .value(`{"at":"${sent}"}`)
          .exec()
          .then(() => void latencies.push({ sentAtEpoch: performance.timeOrigin + started, latency: performance.now() - started })),
      );
      await sleep(options.intervalMs);
    }
    await Promise.all(writes);
    return latencies;
  }
}
