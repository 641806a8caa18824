import { performance } from 'node:perf_hooks';
import { RestClient, sleep } from '@kapi/client';

/**
 * The migrator scenario's foreground writer, in its own process (forked by migrator-bench.ts) as every
 * other scenario's clients are: a client's own work (TLS, JSON, its GC) then never shares the server's
 * event loop and heap. Argument: `{ server, token, ca, path, namespace, intervalMs }` as JSON. Each IPC
 * message `{ seconds }` runs one phase of open-loop PUTs (one every `intervalMs` whatever the answers,
 * round-robin on 4 objects) and answers `{ samples }`: each PUT's latency (ms) and when it was sent (ms
 * since the phase started, and on the epoch clock both processes share).
 */
interface Spec {
  server: string;
  token: string;
  ca: string;
  path: string;
  namespace: string;
  intervalMs: number;
}

/** One foreground PUT: latency (ms), sent at (ms since its phase started), sent at (epoch ms). */
export interface ForegroundSample {
  sentAt: number;
  sentAtEpoch: number;
  latency: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
const client = new RestClient({ server: spec.server, token: spec.token, ca: spec.ca });

async function phase(seconds: number): Promise<ForegroundSample[]> {
  const samples: ForegroundSample[] = [];
  const writes: Array<Promise<void>> = [];
  const phaseStart = performance.now();
  for (let sent = 0; sent < (seconds * 1000) / spec.intervalMs; sent++) {
    const name = `foreground-${sent % 4}`;
    const started = performance.now();
    writes.push(
      client
        .request({ method: 'PUT', path: `${spec.path}/${name}`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: spec.namespace }, data: { at: `${sent}` } } })
        .then(() => void samples.push({ sentAt: started - phaseStart, sentAtEpoch: performance.timeOrigin + started, latency: performance.now() - started })),
    );
    await sleep(spec.intervalMs);
  }
  await Promise.all(writes);
  return samples;
}

process.on('message', (message: { seconds?: number; stop?: boolean }) => {
  if (message.stop) {
    client.close();
    process.disconnect();
    return;
  }
  phase(message.seconds ?? 1).then(
    (samples) => process.send?.({ samples }),
    (error: unknown) => process.send?.({ error: String(error) }),
  );
});
process.send?.({ ready: true });
