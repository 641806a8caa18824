import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';

/** What a hook does around one `ClientHttp2Session#request` call: `request` makes it. */
export type RequestHook = (this: ClientHttp2Session, request: () => ClientHttp2Stream) => ClientHttp2Stream;

/**
 * Runs `hook` around every `request` of the HTTP/2 client sessions this process opens from now on, by
 * wrapping `http2.connect` (sessions opened before are not affected). Installed once per `marker`.
 */
export function hookHttp2ClientRequests(marker: symbol, hook: RequestHook): void {
  const module = http2 as typeof http2 & { [key: symbol]: true | undefined };
  if (module[marker]) return;
  module[marker] = true;
  const connect = http2.connect;
  module.connect = function connectHooked(this: unknown, ...args: Parameters<typeof http2.connect>): ClientHttp2Session {
    const session = connect.apply(this, args);
    const request = session.request;
    session.request = function requestHooked(this: ClientHttp2Session, ...requestArgs: Parameters<ClientHttp2Session['request']>): ClientHttp2Stream {
      return hook.call(this, () => request.apply(this, requestArgs));
    } as ClientHttp2Session['request'];
    return session;
  } as typeof http2.connect;
}
