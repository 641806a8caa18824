import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

type Handler = (request: IncomingMessage, response: ServerResponse) => unknown;

/** What one in-process run measured: CPU µs per request of the server's handler and of the control. */
export interface ChainCpu {
  subject: number;
  control: number;
}

/**
 * CPU per GET of a server's whole handler chain and routes, called in this process with node's own
 * request and response objects (no sockets, no TLS, no parser): the part of a GET's cost the apiserver
 * adds, measured without the load generator or other processes in the way. The control answers the same
 * requests with `bytes` (writeHead + end), as the bare server does. Alternated, best of `rounds` each:
 * on a loaded machine the best run is the one least disturbed.
 */
export async function chainCpuPerGet(handler: Handler, path: string, headers: Record<string, string>, bytes: Buffer, requests = 20_000, rounds = 3): Promise<ChainCpu> {
  const socket = new Socket();
  const rawHeaders = Object.entries({ host: '127.0.0.1', 'user-agent': 'chain-cpu', ...headers }).flat();
  const newExchange = (): [IncomingMessage, ServerResponse] => {
    const request = new IncomingMessage(socket);
    request.method = 'GET';
    request.url = path;
    request.rawHeaders = rawHeaders;
    request.headers = {};
    for (let index = 0; index < rawHeaders.length; index += 2) request.headers[(rawHeaders[index] as string).toLowerCase()] = rawHeaders[index + 1] as string;
    request.httpVersionMajor = 1;
    request.httpVersionMinor = 1;
    request.httpVersion = '1.1';
    request.complete = true;
    request.push(null);
    return [request, new ServerResponse(request)];
  };
  const control: Handler = (_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': bytes.length, 'Cache-Control': 'no-cache, private' });
    response.end(bytes);
  };
  const run = async (serve: Handler): Promise<number> => {
    let started = 0;
    const before = process.cpuUsage();
    // 50 in flight, as requests on many connections interleave in a server (the consistent GETs of one
    // event-loop turn then share one storage revision read, as a loaded server's do).
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (started < requests) {
          started++;
          const [request, response] = newExchange();
          await serve(request, response);
          if (response.statusCode !== 200) throw new Error(`GET ${path}: status ${response.statusCode}`);
        }
      }),
    );
    const cpu = process.cpuUsage(before);
    return (cpu.user + cpu.system) / requests;
  };
  await run(handler); // JIT warm-up
  await run(control);
  const best = { subject: Infinity, control: Infinity };
  for (let round = 0; round < rounds; round++) {
    best.control = Math.min(best.control, await run(control));
    best.subject = Math.min(best.subject, await run(handler));
  }
  return best;
}
