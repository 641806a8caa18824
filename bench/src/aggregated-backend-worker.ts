/**
 * The aggregator bench's backend in a worker thread: its TLS and HTTP work then runs beside the
 * server's event loop, as a real aggregated server's does, instead of on it. Serves discovery, one
 * object and watches; a `{ line, name }` message is written to every open watch, and the time of the
 * write (`process.hrtime`, the same clock in every thread) is posted back as `{ sent: name, at }`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

/** What the bench passes to the worker. */
export interface BackendWorkerData {
  key: string;
  cert: string;
  requestHeaderCA: string;
  body: Uint8Array;
  group: string;
  watchPath: string;
}

const data = workerData as BackendWorkerData;
const body = Buffer.from(data.body);
const watches = new Set<ServerResponse>();
/** TLS handshakes and requests served, reported on a `{ counts: true }` message. */
const counts = { handshakes: 0, requests: 0 };
const discovery = JSON.stringify({
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${data.group}/v1alpha1`,
  resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list', 'watch'] }],
});
const server = createServer(
  { key: data.key, cert: data.cert, ca: data.requestHeaderCA, requestCert: true, rejectUnauthorized: false },
  (request: IncomingMessage, response) => {
    counts.requests++;
    const path = request.url ?? '/';
    if (path === `/apis/${data.group}/v1alpha1`) {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(discovery);
    } else if (path.startsWith(data.watchPath)) {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      response.flushHeaders();
      watches.add(response);
      parentPort?.postMessage({ watches: watches.size });
      response.once('close', () => watches.delete(response));
    } else {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      response.end(body);
    }
  },
);
server.on('secureConnection', () => counts.handshakes++);
parentPort?.on('message', (message: { line?: string; name?: string; close?: boolean; counts?: boolean }) => {
  if (message.counts) parentPort?.postMessage({ counts });
  if (message.line !== undefined) {
    const at = process.hrtime.bigint();
    for (const watch of watches) watch.write(message.line);
    parentPort?.postMessage({ sent: message.name, at });
  }
  if (message.close) {
    server.closeAllConnections();
    server.close(() => parentPort?.close());
  }
});
server.listen(0, '127.0.0.1', () => parentPort?.postMessage({ port: (server.address() as AddressInfo).port }));
