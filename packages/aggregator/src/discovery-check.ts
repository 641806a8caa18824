import { request as httpsRequest, type Agent } from 'node:https';
import type { ResolvedEndpoint } from './endpoint-resolver.js';

/** The identity the aggregator's own requests use, as upstream: `system:kube-aggregator` in `system:masters`. */
export const aggregatorCheckIdentity = { 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters' };

/** The answer of {@link backendGet}: a body on 2xx, or the failure in upstream's words. */
export type BackendAnswer = { body: Buffer; failure?: undefined } | { failure: string; body?: undefined };

/** Largest body the aggregator reads from a backend's discovery or OpenAPI index. */
const maxBodyBytes = 16 * 1024 * 1024;

/**
 * `GET <path>` on a backend as the aggregator (upstream's discovery check when `path` is
 * `/apis/<group>/<version>`): any 2xx within `timeoutMs` passes. A failure reads `failing or missing
 * response from <url>: …`, `bad status from <url>: <code>` or `timed out waiting for <url>`.
 */
export function backendGet(endpoint: ResolvedEndpoint, path: string, agent: Agent, timeoutMs: number): Promise<BackendAnswer> {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  const url = `https://${host}:${endpoint.port}${path}`;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: BackendAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const request = httpsRequest({
      host: endpoint.host,
      port: endpoint.port,
      path,
      method: 'GET',
      agent,
      headers: { Accept: 'application/json', ...aggregatorCheckIdentity },
    });
    const timer = setTimeout(() => {
      settle({ failure: `timed out waiting for ${url}` });
      request.destroy();
    }, timeoutMs);
    request.on('response', (response) => {
      const code = response.statusCode ?? 0;
      if (code < 200 || code >= 300) {
        response.resume();
        settle({ failure: `bad status from ${url}: ${code}` });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBodyBytes) request.destroy(new Error(`response larger than ${maxBodyBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => settle({ body: Buffer.concat(chunks) }));
    });
    request.on('error', (error) => settle({ failure: `failing or missing response from ${url}: ${error.message}` }));
    request.end();
  });
}
