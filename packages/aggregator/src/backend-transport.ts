import { Agent } from 'node:https';
import { createSecureContext } from 'node:tls';
import type { UserInfo } from '@kapi/filters';
import type { APIService } from './apiservice-kind.js';
import type { ResolvedEndpoint } from './endpoint-resolver.js';

/** The client certificate the aggregator presents to backends (`--proxy-client-cert-file`/`--proxy-client-key-file`). */
export interface ProxyClientCertificate {
  certificatePem: string;
  privateKeyPem: string;
}

/** Token characters (RFC 7230 tchar) other than `%`: left as they are in `X-Remote-Extra-` keys. */
const tokenCharacter = /[!#$&'*+\-.^_`|~0-9A-Za-z]/;

/** Escapes an extra key as client-go does: bytes outside the token characters, and `%`, as `%XX`. */
export function escapeExtraKey(key: string): string {
  let escaped = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const character = String.fromCharCode(byte);
    escaped += tokenCharacter.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped;
}

/**
 * The front-proxy identity headers of a user (client-go's NewAuthProxyRoundTripper): `X-Remote-User`,
 * `X-Remote-Uid` when the user has a UID (upstream's RemoteRequestHeaderUID, on by default since 1.33),
 * one `X-Remote-Group` per group, `X-Remote-Extra-<escaped key>` per extra value.
 */
export function identityHeaders(user: UserInfo): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'X-Remote-User': user.name };
  if (user.uid) headers['X-Remote-Uid'] = user.uid;
  if (user.groups.length > 0) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    if (values.length > 0) headers[`X-Remote-Extra-${escapeExtraKey(key)}`] = [...values];
  }
  return headers;
}

/**
 * HTTPS agents for backends, one per TLS configuration (CA bundle or insecure, server name), all
 * presenting the proxy client certificate and keeping connections alive. Each agent's TLS context
 * (certificate, key, CA) is built once, not per new connection, and an APIService object (the informer's,
 * replaced on every change) finds its agent without building the key again.
 */
export class BackendAgents {
  private readonly agents = new Map<string, Agent>();
  private byAPIService = new WeakMap<APIService, { serverName: string; agent: Agent }>();

  constructor(private readonly clientCertificate: () => ProxyClientCertificate) {}

  /** The agent for an APIService's backend at `endpoint`. */
  agentFor(apiService: APIService, endpoint: ResolvedEndpoint): Agent {
    const known = this.byAPIService.get(apiService);
    if (known?.serverName === endpoint.serverName) return known.agent;
    const insecure = apiService.spec.insecureSkipTLSVerify === true;
    const caBundle = apiService.spec.caBundle ?? '';
    const key = `${insecure}\n${endpoint.serverName}\n${caBundle}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const certificate = this.clientCertificate();
      const secureContext = createSecureContext({
        cert: certificate.certificatePem,
        key: certificate.privateKeyPem,
        ...(caBundle ? { ca: Buffer.from(caBundle, 'base64').toString('utf8') } : {}),
      });
      agent = new Agent({ keepAlive: true, secureContext, servername: endpoint.serverName, rejectUnauthorized: !insecure });
      this.agents.set(key, agent);
    }
    this.byAPIService.set(apiService, { serverName: endpoint.serverName, agent });
    return agent;
  }

  /** Closes every agent's idle connections. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
    this.byAPIService = new WeakMap();
  }
}
