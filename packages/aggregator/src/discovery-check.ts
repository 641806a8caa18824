import { request as httpsRequest, type Agent } from 'node:https';
import type { ResolvedEndpoint } from './endpoint-resolver.js';

/** The identity the aggregator's checks use, as upstream: `system:kube-aggregator` in `system:masters`. */
export const aggregatorCheckIdentity = { 'X-Remote-User': 'system:kube-aggregator', 'X-Remote-Group': 'system:masters' };

/**
 * Upstream's discovery check of a remote APIService: `GET /apis/<group>/<version>` on the backend, with
 * the aggregator's identity, passes on any 2xx within `timeoutMs`. Resolves with the failure message
 * (`failing or missing response from <url>: …`, `bad status from <url>: <code>`, `timed out waiting for
 * <url>`), or undefined when the check passed.
 */
export function discoveryCheck(
  endpoint: ResolvedEndpoint,
  path: string,
  agent: Agent,
  timeoutMs: number,
): Promise<string | undefined> {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  const url = `https://${host}:${endpoint.port}${path}`;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
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
      settle(`timed out waiting for ${url}`);
      request.destroy();
    }, timeoutMs);
    request.on('response', (response) => {
      response.resume();
      const code = response.statusCode ?? 0;
      settle(code >= 200 && code < 300 ? undefined : `bad status from ${url}: ${code}`);
    });
    request.on('error', (error) => settle(`failing or missing response from ${url}: ${error.message}`));
    request.end();
  });
}
