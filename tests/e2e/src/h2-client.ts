import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { loadKubeconfig } from '@kapi/client';

/** One line of a watch stream. */
export interface WatchLine {
  type: string;
  object: { kind?: string; metadata?: { name?: string; resourceVersion?: string } };
}

/** A watch opened as one HTTP/2 stream, with the lines it received so far. */
export interface H2Watch {
  stream: ClientHttp2Stream;
  /** The response's `:status`, once the headers came. */
  status: Promise<number>;
  lines: WatchLine[];
  /** Resolves when the stream has ended (cleanly or not). */
  ended: Promise<void>;
  /** Resolves with the first line (already received or to come) that `match` accepts. */
  next(match: (line: WatchLine) => boolean): Promise<WatchLine>;
}

/** Opens an HTTP/2 session to the server of `kubeconfig` with its admin client certificate. */
export async function connectH2(kubeconfig: string): Promise<ClientHttp2Session> {
  const config = loadKubeconfig(kubeconfig);
  const session = connect(config.server, {
    ...(config.ca ? { ca: config.ca } : {}),
    ...(config.cert ? { cert: config.cert } : {}),
    ...(config.key ? { key: config.key } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    session.once('remoteSettings', () => resolve());
    session.once('error', reject);
  });
  session.on('error', () => undefined);
  return session;
}

/** Sends one request on `session`; resolves with its status and body. */
export function h2Request(
  session: ClientHttp2Session,
  path: string,
  options: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': options.method ?? 'GET',
      ':path': path,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    });
    let status = 0;
    let body = '';
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    stream.on('end', () => resolve({ status, body }));
    stream.on('error', reject);
    stream.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

/** Opens a watch (`path` with its query) as one stream on `session`. */
export function h2Watch(session: ClientHttp2Session, path: string): H2Watch {
  const stream = session.request({ ':method': 'GET', ':path': path });
  const lines: WatchLine[] = [];
  const waiters: Array<{ match: (line: WatchLine) => boolean; resolve: (line: WatchLine) => void }> = [];
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    rest += chunk;
    let newline = rest.indexOf('\n');
    while (newline >= 0) {
      const line = JSON.parse(rest.slice(0, newline)) as WatchLine;
      rest = rest.slice(newline + 1);
      newline = rest.indexOf('\n');
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.match(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  stream.on('error', () => undefined);
  return {
    stream,
    lines,
    status: new Promise((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status'])))),
    ended: new Promise((resolve) => stream.once('close', () => resolve())),
    next(match) {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}
