import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/** A request handler as node:http calls it. */
export type Handler = (request: IncomingMessage, response: ServerResponse) => unknown;

/** What one in-process run measured: CPU µs per request of the server's handler and of the control. */
export interface ChainCpu {
  subject: number;
  control: number;
}

/** The request every in-process run sends, and the status each answer must have. */
export interface InProcessRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  status: number;
}

/**
 * CPU per request of a server's whole handler chain and routes, called in this process with node's own
 * request and response objects (no sockets, no TLS, no parser): the part of a request's cost the server
 * adds, measured without the load generator or other processes in the way. `control` answers the same
 * requests as the bare server does. Alternated, best of `rounds` each: on a loaded machine the best run
 * is the one least disturbed. `inFlight` requests at once, as requests on many connections interleave in
 * a server. An answer with another status than `request.status` fails the run.
 */
export async function inProcessCpu(handler: Handler, control: Handler, request: InProcessRequest, options: { requests: number; rounds: number; inFlight: number }): Promise<ChainCpu> {
  const socket = new Socket();
  const rawHeaders = Object.entries({
    host: '127.0.0.1',
    'user-agent': 'chain-cpu',
    ...request.headers,
    ...(request.body ? { 'content-length': String(request.body.length) } : {}),
  }).flat();
  // Settles when the handler ends the response (a create's handler may return before it does).
  const exchange = (serve: Handler): Promise<number> => {
    const incoming = new IncomingMessage(socket);
    incoming.method = request.method;
    incoming.url = request.path;
    incoming.rawHeaders = rawHeaders;
    incoming.headers = {};
    for (let index = 0; index < rawHeaders.length; index += 2) incoming.headers[(rawHeaders[index] as string).toLowerCase()] = rawHeaders[index + 1] as string;
    incoming.httpVersionMajor = 1;
    incoming.httpVersionMinor = 1;
    incoming.httpVersion = '1.1';
    if (request.body) incoming.push(request.body);
    incoming.push(null);
    incoming.complete = true;
    const response = new ServerResponse(incoming);
    return new Promise<number>((resolve, reject) => {
      const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
      response.end = ((...args: unknown[]) => {
        const ended = end(...args);
        resolve(response.statusCode);
        return ended;
      }) as ServerResponse['end'];
      Promise.resolve(serve(incoming, response)).catch(reject);
    });
  };
  const run = async (serve: Handler): Promise<number> => {
    let started = 0;
    const before = process.cpuUsage();
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (started < options.requests) {
          started++;
          const status = await exchange(serve);
          if (status !== request.status) throw new Error(`${request.method} ${request.path}: status ${status}, not ${request.status}`);
        }
      }),
    );
    const cpu = process.cpuUsage(before);
    return (cpu.user + cpu.system) / options.requests;
  };
  await run(handler); // JIT warm-up
  await run(control);
  const best = { subject: Infinity, control: Infinity };
  for (let round = 0; round < options.rounds; round++) {
    best.control = Math.min(best.control, await run(control));
    best.subject = Math.min(best.subject, await run(handler));
  }
  return best;
}

/**
 * {@link inProcessCpu} of GETs of `path`; the control answers with `bytes` (writeHead + end), as the bare
 * server does. 50 in flight: the consistent GETs of one event-loop turn then share one storage revision
 * read, as a loaded server's do.
 */
export function chainCpuPerGet(handler: Handler, path: string, headers: Record<string, string>, bytes: Buffer, requests = 20_000, rounds = 3): Promise<ChainCpu> {
  const control: Handler = (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length, 'Cache-Control': 'no-cache, private' });
    response.end(bytes);
  };
  return inProcessCpu(handler, control, { method: 'GET', path, headers, status: 200 }, { requests, rounds, inFlight: 50 });
}
