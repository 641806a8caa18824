import type { Filter } from './handler.js';

/** Options of {@link withCors} (kube-apiserver `--cors-allowed-origins` and WithCORS defaults). */
export interface CorsOptions {
  /** Origins allowed; empty turns CORS off. */
  allowedOrigins: readonly RegExp[];
  /** Default POST, GET, OPTIONS, PUT, DELETE, PATCH. */
  allowedMethods?: readonly string[];
  /** Default Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since. */
  allowedHeaders?: readonly string[];
  /** Default Date. */
  exposedHeaders?: readonly string[];
  /** `Access-Control-Allow-Credentials`; default `true`. */
  allowCredentials?: string;
}

/**
 * CORS as k8s.io/apiserver's WithCORS: a request whose `Origin` matches one of the patterns gets the
 * origin echoed with the allow headers; a matching `OPTIONS` preflight is answered 204 here.
 * Requests without an allowed origin pass through untouched.
 */
export function withCors(options: CorsOptions): Filter {
  const origins = options.allowedOrigins;
  const methods = (options.allowedMethods ?? ['POST', 'GET', 'OPTIONS', 'PUT', 'DELETE', 'PATCH']).join(', ');
  const headers = (
    options.allowedHeaders ?? [
      'Content-Type',
      'Content-Length',
      'Accept-Encoding',
      'X-CSRF-Token',
      'Authorization',
      'X-Requested-With',
      'If-Modified-Since',
    ]
  ).join(', ');
  const exposed = (options.exposedHeaders ?? ['Date']).join(', ');
  const credentials = options.allowCredentials ?? 'true';
  return (next) => {
    if (origins.length === 0) return next;
    return (request, response) => {
      const origin = request.headers.origin;
      if (origin && origins.some((pattern) => matches(pattern, origin))) {
        response.setHeader('Access-Control-Allow-Origin', origin);
        response.setHeader('Access-Control-Allow-Methods', methods);
        response.setHeader('Access-Control-Allow-Headers', headers);
        response.setHeader('Access-Control-Expose-Headers', exposed);
        response.setHeader('Access-Control-Allow-Credentials', credentials);
        if (request.method === 'OPTIONS') {
          response.writeHead(204);
          response.end();
          return;
        }
      }
      return next(request, response);
    };
  };
}

function matches(pattern: RegExp, origin: string): boolean {
  // Global/sticky patterns keep state in lastIndex; reset so every request is judged alone.
  pattern.lastIndex = 0;
  return pattern.test(origin);
}
