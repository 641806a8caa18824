import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { isWatchStream, streamExchange } from './h2-watch-exchange.js';

/** Go's `http2.Server` default for `MaxConcurrentStreams`, which upstream keeps when the flag is 0. */
export const defaultHTTP2MaxStreamsPerConnection = 250;
/** Upstream's per-stream upload buffer (`resourceBody99Percentile`): the receive window of one stream. */
const uploadBufferPerStream = 256 * 1024;
/** Node's default `maxSessionMemory` (MB), the floor of the per-session budget. */
const minimumSessionMemoryMB = 10;
/** How long closing HTTP/2 sessions may take to end by themselves before their sockets are cut. */
const sessionCloseGraceMs = 1000;

/** How the secure port serves. */
export interface SecureServerOptions {
  key: string | Buffer;
  cert: string | Buffer;
  /** Ask clients for certificates signed by this CA (client-cert authentication). */
  clientCA?: string | Buffer;
  /** SETTINGS_MAX_CONCURRENT_STREAMS of each HTTP/2 connection; 0 means Go's default (250). */
  http2MaxStreamsPerConnection: number;
}

/** A secure port serving HTTP/2 and HTTP/1.1 (ALPN), with the shutdown steps GenericAPIServer needs. */
export interface SecureServer {
  readonly server: Http2SecureServer;
  /** Sends GOAWAY on every open HTTP/2 session: open streams (watches) finish, no new ones start. */
  goAway(): void;
  /** Stops listening, sends GOAWAY to every session left, closes idle HTTP/1.1 connections, then cuts the rest. */
  close(): Promise<void>;
}

/**
 * Creates the secure port: `h2` and `http/1.1` by ALPN, as Go's `net/http` does for kube-apiserver.
 * HTTP/2 requests reach `listener` through node's compatibility request/response, which the handler
 * chain uses as node:http's (same fields and events; connection headers are never set on them); watch
 * streams through the lighter stand-ins of `h2-watch-exchange.ts`.
 * Each session advertises `http2MaxStreamsPerConnection` concurrent streams and, as upstream, a
 * 256 KiB receive window per stream (the session window and memory budget scale with the stream count).
 */
export function createSecureAPIServer(
  options: SecureServerOptions,
  listener: (request: IncomingMessage, response: ServerResponse) => void,
): SecureServer {
  const maxStreams = options.http2MaxStreamsPerConnection > 0 ? options.http2MaxStreamsPerConnection : defaultHTTP2MaxStreamsPerConnection;
  const sessionWindow = uploadBufferPerStream * maxStreams;
  const server = createSecureServer(
    {
      key: options.key,
      cert: options.cert,
      ...(options.clientCA ? { ca: options.clientCA, requestCert: true, rejectUnauthorized: false } : {}),
      allowHTTP1: true,
      // TCP_NODELAY on every accepted connection, as Go's net package and node:https set it: a small write
      // (a watch event, an h2 frame) is not held back while the previous one waits for its ACK.
      noDelay: true,
      settings: { maxConcurrentStreams: maxStreams, initialWindowSize: uploadBufferPerStream },
      maxSessionMemory: Math.max(minimumSessionMemoryMB, Math.ceil(sessionWindow / (1024 * 1024))),
    },
    // The compatibility API mirrors node:http's request and response; the handler chain is typed on those.
    (request: Http2ServerRequest, response: Http2ServerResponse) =>
      listener(request as unknown as IncomingMessage, response as unknown as ServerResponse),
  );
  // Watches skip the compatibility objects (see h2-watch-exchange.ts); every other stream goes to node's
  // own compatibility handler, which the request listener above installed.
  // (A node without that handler keeps its own dispatch.)
  const compatibility = server.listeners('stream') as Array<(...args: unknown[]) => void>;
  if (compatibility.length > 0) {
    server.removeAllListeners('stream');
    server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
      if (!isWatchStream(headers)) {
        for (const compat of compatibility) compat.call(server, stream, headers, flags, rawHeaders);
        return;
      }
      const { request, response } = streamExchange(stream, headers, rawHeaders);
      listener(request as unknown as IncomingMessage, response as unknown as ServerResponse);
    });
  }
  // HTTP/1.1 connections on this server get node:http's keep-alive timeout (the h2 server sets none).
  (server as Http2SecureServer & { keepAliveTimeout?: number }).keepAliveTimeout = 5000;
  const sessions = new Set<ServerHttp2Session>();
  const sockets = new Set<TLSSocket>();
  // One listener for every socket (and session), with the socket as `this`: a per-connection closure
  // and `once` wrapper would stay with each idle connection (an HTTP/1.1 watch is one) for its life.
  function forgetSocket(this: TLSSocket): void {
    sockets.delete(this);
  }
  function forgetSession(this: ServerHttp2Session): void {
    sessions.delete(this);
  }
  server.on('secureConnection', (socket: TLSSocket) => {
    sockets.add(socket);
    socket.on('close', forgetSocket);
  });
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.on('close', forgetSession);
    session.setLocalWindowSize(sessionWindow);
  });
  const goAway = (): void => {
    for (const session of sessions) if (!session.closed) session.close();
  };
  return {
    server,
    goAway,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        goAway();
        // Node has it for allowHTTP1 servers; its types do not list it.
        (server as Http2SecureServer & { closeIdleConnections(): void }).closeIdleConnections();
        // What is left is cut, but an HTTP/2 session first gets a moment to end by itself: its streams'
        // last frames (a watch's final BOOKMARK and END_STREAM) reach the client instead of a reset.
        const cut = (): void => {
          for (const socket of sockets) socket.destroy();
        };
        if (sessions.size === 0) return void setImmediate(cut);
        const grace = setTimeout(cut, sessionCloseGraceMs);
        let open = sessions.size;
        for (const session of sessions)
          session.once('close', () => {
            if (--open > 0) return;
            clearTimeout(grace);
            setImmediate(cut);
          });
      }),
  };
}
