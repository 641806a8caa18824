import { request as httpsRequest } from 'node:https';

/** An HTTPS answer: status, JSON body (when it is JSON) and text. */
export interface HttpsAnswer {
  code: number;
  body: Record<string, unknown>;
  text: string;
}

/** Credentials and headers of {@link httpsCall}. */
export interface HttpsCallOptions {
  /** PEM of the CA to trust. */
  ca?: string | undefined;
  cert?: string;
  key?: string;
  token?: string;
  headers?: Record<string, string | string[]>;
  /** JSON-encoded unless a string. */
  body?: unknown;
  contentType?: string;
}

/**
 * One HTTPS request straight to a server, with a client certificate and/or token of the caller's choice,
 * on a new connection (TLS trust is decided once per connection).
 */
export function httpsCall(url: string, method: string, path: string, options: HttpsCallOptions): Promise<HttpsAnswer> {
  const payload = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return new Promise((resolveAnswer, reject) => {
    const request = httpsRequest(
      new URL(path, url),
      {
        method,
        agent: false,
        ca: options.ca,
        ...(options.cert && options.key ? { cert: options.cert, key: options.key } : {}),
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(payload !== undefined ? { 'content-type': options.contentType ?? 'application/json' } : {}),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // not JSON
          }
          resolveAnswer({ code: response.statusCode ?? 0, body, text });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}
