import { Agent, request } from 'node:https';
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { ClientRequest } from 'node:http';

/**
 * The clients of the HTTP/2 scenarios, in their own process (forked by h2-bench.ts) so the server's
 * event loop is what gets measured. Speaks HTTP/1.1 (one TLS connection per watch, keep-alive sockets
 * for GETs) or HTTP/2 (streams multiplexed on `ceil(n / streamsPerSession)` sessions), so both
 * protocols are driven by the same code.
 *
 * `watch` mode: opens N watch streams and counts event lines (one `\n` each); messages as
 * watch-fanout-clients.ts: parent → `expect` / `stats` / `close`, child → `ready` / `done` / `stats`.
 * `get` mode: GETs `path` with `concurrency` in flight for `durationSeconds`, then sends `result`.
 */
interface ClientSpec {
  mode: 'watch' | 'get';
  protocol: 'h1' | 'h2';
  origin: string;
  path: string;
  ca: string;
  token: string;
  /** watch: streams; get: requests in flight. */
  count: number;
  /** HTTP/2: streams per session (the server's SETTINGS_MAX_CONCURRENT_STREAMS). */
  streamsPerSession: number;
  durationSeconds?: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as ClientSpec;
const headers = { authorization: `Bearer ${spec.token}` };
const send = (message: Record<string, unknown>) => process.send?.(message);

function countLines(chunk: Buffer): number {
  let count = 0;
  for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) count++;
  return count;
}

/** HTTP/2 sessions, each carrying up to `streamsPerSession` slots (as Go's transport opens more connections). */
class Sessions {
  readonly all: Array<Promise<ClientHttp2Session>> = [];

  /** The session of slot `index` (a watch, or a GET worker), connected on first use. */
  forSlot(index: number): Promise<ClientHttp2Session> {
    const number = Math.floor(index / spec.streamsPerSession);
    return (this.all[number] ??= new Promise((resolve, reject) => {
      const session = connect(spec.origin, { ca: spec.ca });
      session.on('error', () => undefined);
      session.once('remoteSettings', () => resolve(session));
      session.once('error', reject);
    }));
  }

  async closeAll(): Promise<void> {
    for (const session of await Promise.all(this.all)) session.destroy();
  }
}

const sessions = new Sessions();
const agent = new Agent({ ca: spec.ca, keepAlive: spec.mode === 'get', maxSockets: spec.mode === 'get' ? spec.count : Infinity });

/** Sends one request; `onData` sees the body's chunks; resolves with the status once the headers came, `ended` at the end. */
async function open(slot: number, onData: (chunk: Buffer) => void, ended: () => void): Promise<{ status: number; cancel: () => void }> {
  if (spec.protocol === 'h2') {
    const session = await sessions.forSlot(slot);
    return new Promise((resolve) => {
      const stream: ClientHttp2Stream = session.request({ ':path': spec.path, ...headers });
      stream.on('response', (responseHeaders) => resolve({ status: Number(responseHeaders[':status']), cancel: () => stream.close() }));
      stream.on('data', onData);
      stream.on('end', ended);
      stream.on('error', () => resolve({ status: 0, cancel: () => undefined }));
      stream.end();
    });
  }
  return new Promise((resolve) => {
    const outgoing: ClientRequest = request(`${spec.origin}${spec.path}`, { agent, headers }, (response) => {
      response.on('data', onData);
      response.on('end', ended);
      response.on('error', () => undefined);
      resolve({ status: response.statusCode ?? 0, cancel: () => outgoing.destroy() });
    });
    outgoing.on('error', () => resolve({ status: 0, cancel: () => undefined }));
    outgoing.end();
  });
}

async function watchMode(): Promise<void> {
  let lines = 0;
  let lastAt = 0;
  let ended = 0;
  let failed = 0;
  let expected = Number.POSITIVE_INFINITY;
  let doneSent = false;
  const cancels: Array<() => void> = [];
  const stats = () => ({ lines, lastAt, ended, failed });
  const onData = (chunk: Buffer) => {
    const count = countLines(chunk);
    if (count === 0) return;
    lines += count;
    lastAt = Date.now();
    if (!doneSent && lines >= expected) {
      doneSent = true;
      send({ type: 'done', ...stats() });
    }
  };
  process.on('message', (message: { type: string; lines?: number }) => {
    if (message.type === 'expect') {
      expected = message.lines ?? Number.POSITIVE_INFINITY;
      doneSent = lines >= expected;
      if (doneSent) send({ type: 'done', ...stats() });
    } else if (message.type === 'stats') {
      send({ type: 'stats', ...stats() });
    } else if (message.type === 'close') {
      for (const cancel of cancels) cancel();
      void sessions.closeAll();
      agent.destroy();
      process.disconnect?.();
      setTimeout(() => process.exit(0), 100).unref();
    }
  });
  let next = 0;
  const opener = async () => {
    while (next < spec.count) {
      const opened = await open(next++, onData, () => ended++);
      if (opened.status === 200) cancels.push(opened.cancel);
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(50, spec.count) }, opener));
  send({ type: 'ready', open: cancels.length, failed, sessions: sessions.all.length });
}

async function getMode(): Promise<void> {
  const latencies: number[] = [];
  let errors = 0;
  const until = Date.now() + (spec.durationSeconds ?? 5) * 1000;
  const worker = async (slot: number) => {
    while (Date.now() < until) {
      const started = process.hrtime.bigint();
      await new Promise<void>((resolve) => {
        void open(slot, () => undefined, () => resolve()).then((opened) => {
          if (opened.status !== 200) {
            errors++;
            resolve();
          }
        });
      });
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: spec.count }, (_, slot) => worker(slot)));
  const seconds = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  send({ type: 'result', requestsPerSecond: (latencies.length - errors) / seconds, p50: quantile(0.5), p99: quantile(0.99), errors, sessions: sessions.all.length });
  await sessions.closeAll();
  agent.destroy();
  process.disconnect?.();
}

process.on('disconnect', () => process.exit(0));
if (spec.mode === 'watch') await watchMode();
else await getMode();
