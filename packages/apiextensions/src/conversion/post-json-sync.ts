import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';

/** What a POST gave: the status and body, or a transport error text. */
export type PostResult = { status: number; body: string } | { error: string };

/** Options of {@link postJsonSync}. */
export interface PostOptions {
  /** PEM certificates to trust (a caBundle); default: the system roots. */
  ca?: string;
  timeoutMs: number;
}

/** The worker: performs one POST per message and wakes the waiting thread when the answer is posted. */
const workerSource = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
parentPort.on('message', ({ port, signal, url, body, ca, timeoutMs }) => {
  let answered = false;
  const done = (result) => {
    if (answered) return;
    answered = true;
    port.postMessage(result);
    port.close();
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  try {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const request = client.request(target, { method: 'POST', headers, timeout: timeoutMs, ...(ca ? { ca } : {}) }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => done({ status: response.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', (error) => done({ error: error.message }));
    });
    request.on('timeout', () => request.destroy(new Error('context deadline exceeded')));
    request.on('error', (error) => done({ error: error.message }));
    request.end(body);
  } catch (error) {
    done({ error: error.message });
  }
});
`;

let worker: Worker | undefined;

function sharedWorker(): Worker {
  if (!worker) {
    worker = new Worker(workerSource, { eval: true });
    worker.unref();
    worker.on('exit', () => (worker = undefined));
  }
  return worker;
}

/**
 * POSTs a JSON body and waits for the answer synchronously (a worker thread does the I/O while this
 * thread sleeps on an Atomics wait): the scheme's conversion functions are synchronous, and a
 * conversion webhook is a remote call. The calling thread serves nothing meanwhile.
 */
export function postJsonSync(url: string, body: string, options: PostOptions): PostResult {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  try {
    sharedWorker().postMessage({ port: port2, signal, url, body, ca: options.ca, timeoutMs: options.timeoutMs }, [port2]);
    Atomics.wait(signal, 0, 0, options.timeoutMs + 1000);
    const received = receiveMessageOnPort(port1);
    return received ? (received.message as PostResult) : { error: 'context deadline exceeded' };
  } finally {
    port1.close();
  }
}
