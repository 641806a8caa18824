import { Agent, request } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';

/**
 * The watchers of the fan-out scenario, in their own process (forked by watch-fanout.ts) so that the
 * server's event loop is what gets measured. Opens N chunked HTTPS watch streams to one URL and counts
 * the event lines they receive (one `\n` per event; nothing is parsed).
 *
 * Parent → child messages: `{ type: 'expect', lines }` (report `done` once that many lines arrived in
 * total), `{ type: 'stats' }`, `{ type: 'close' }`.
 * Child → parent: `{ type: 'ready', open, failed }`, `{ type: 'sample', line }` (the first event line
 * of the first watcher), `{ type: 'done' | 'stats', lines, lastAt, ended }`.
 */
interface ClientSpec {
  url: string;
  ca: string;
  headers: Record<string, string>;
  watchers: number;
  /** How many streams are being opened at once. */
  openConcurrency?: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as ClientSpec;
const agent = new Agent({ ca: spec.ca, keepAlive: false, maxSockets: Infinity });
const requests: ClientRequest[] = [];
const responses: IncomingMessage[] = [];
let lines = 0;
let lastAt = 0;
let ended = 0;
let failed = 0;
let expected = Number.POSITIVE_INFINITY;
let doneSent = false;
let sample: string | undefined;
let sampleBuffer = '';

const send = (message: Record<string, unknown>) => process.send?.(message);
const stats = () => ({ lines, lastAt, ended, failed });

function countLines(chunk: Buffer): number {
  let count = 0;
  let index = chunk.indexOf(10);
  while (index !== -1) {
    count++;
    index = chunk.indexOf(10, index + 1);
  }
  return count;
}

function onChunk(chunk: Buffer, first: boolean): void {
  const count = countLines(chunk);
  if (count === 0) return;
  lines += count;
  lastAt = Date.now();
  if (first && sample === undefined) {
    sampleBuffer += chunk.toString('utf8');
    const end = sampleBuffer.indexOf('\n');
    if (end !== -1) {
      sample = sampleBuffer.slice(0, end + 1);
      send({ type: 'sample', line: sample });
    }
  }
  if (!doneSent && lines >= expected) {
    doneSent = true;
    send({ type: 'done', ...stats() });
  }
}

function open(index: number): Promise<void> {
  return new Promise((resolve) => {
    const watch = request(spec.url, { agent, headers: spec.headers }, (response) => {
      responses.push(response);
      if (response.statusCode !== 200) failed++;
      response.on('data', (chunk: Buffer) => onChunk(chunk, index === 0));
      response.on('end', () => ended++);
      response.on('error', () => undefined);
      resolve();
    });
    watch.on('error', () => {
      failed++;
      resolve();
    });
    watch.end();
    requests.push(watch);
  });
}

process.on('message', (message: { type: string; lines?: number }) => {
  if (message.type === 'expect') {
    expected = message.lines ?? Number.POSITIVE_INFINITY;
    doneSent = false;
    if (lines >= expected) {
      doneSent = true;
      send({ type: 'done', ...stats() });
    }
  } else if (message.type === 'stats') {
    send({ type: 'stats', ...stats() });
  } else if (message.type === 'close') {
    for (const watch of requests) watch.destroy();
    agent.destroy();
    process.disconnect?.();
    setTimeout(() => process.exit(0), 100).unref();
  }
});
process.on('disconnect', () => process.exit(0));

let next = 0;
const opener = async () => {
  for (;;) {
    const index = next++;
    if (index >= spec.watchers) return;
    await open(index);
  }
};
await Promise.all(Array.from({ length: Math.min(spec.openConcurrency ?? 50, spec.watchers) }, opener));
send({ type: 'ready', open: responses.length - failed, failed });
