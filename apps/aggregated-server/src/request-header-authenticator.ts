import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { Authenticator, UserInfo } from '@kapi/filters';
import type { RequestHeaderConfig } from './authentication-config.js';

/** The SHA-256 fingerprints of every certificate in a PEM bundle (`AB:CD:...`, as Node reports them). */
export function bundleFingerprints(pem: string): Set<string> {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return new Set(blocks.map((block) => new X509Certificate(block).fingerprint256));
}

/**
 * The peer certificate of a request that the TLS layer verified, with the fingerprint of the root its
 * chain ends in; undefined when the client sent none. A certificate that failed verification throws
 * (upstream's `x509: certificate signed by unknown authority`).
 */
export function verifiedPeer(request: IncomingMessage): { certificate: DetailedPeerCertificate; root: string } | undefined {
  const socket = request.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const certificate = socket.getPeerCertificate(true);
  if (!certificate || Object.keys(certificate).length === 0) return undefined;
  if (!socket.authorized) {
    const reason = socket.authorizationError instanceof Error ? socket.authorizationError.message : String(socket.authorizationError);
    throw new Error(`verifying certificate SN=${certificate.serialNumber} failed: x509: ${reason}`);
  }
  let root = certificate;
  while (root.issuerCertificate && root.issuerCertificate !== root && root.issuerCertificate.fingerprint256 !== root.fingerprint256) {
    root = root.issuerCertificate;
  }
  return { certificate, root: root.fingerprint256 };
}

function commonName(certificate: DetailedPeerCertificate): string {
  const cn = (certificate.subject as unknown as Record<string, string | string[] | undefined>)['CN'];
  return (Array.isArray(cn) ? cn[0] : cn) ?? '';
}

function headerValues(request: IncomingMessage, name: string): string[] {
  const value = request.headers[name.toLowerCase()];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * Front-proxy authentication (upstream's request-header authenticator behind an x509 verifier): the
 * identity headers count only on a connection whose client certificate chains to the request-header CA
 * and whose CN is allowed. The user is the first non-empty user header, groups every group header value,
 * extras the `<prefix><key>` headers (key lower-cased and %-unescaped). The headers are removed after.
 */
export function requestHeaderAuthenticator(config: RequestHeaderConfig): Authenticator {
  const roots = bundleFingerprints(config.clientCA);
  const allowed = new Set(config.allowedNames);
  const prefixes = config.extraHeaderPrefixes.map((prefix) => prefix.toLowerCase());
  return (request) => {
    const user = firstValue(request, config.usernameHeaders);
    if (user === undefined) return undefined;
    const peer = verifiedPeer(request);
    if (!peer || !roots.has(peer.root)) return undefined;
    const cn = commonName(peer.certificate);
    if (allowed.size > 0 && !allowed.has(cn)) {
      throw new Error(`x509: subject with cn=${cn} is not in the allowed list`);
    }
    const groups = config.groupHeaders.flatMap((header) => headerValues(request, header));
    const extra: Record<string, string[]> = {};
    for (const [header, value] of Object.entries(request.headers)) {
      const prefix = prefixes.find((candidate) => header.startsWith(candidate));
      if (!prefix || value === undefined) continue;
      const key = decodeURIComponent(header.slice(prefix.length)).toLowerCase();
      (extra[key] ??= []).push(...(Array.isArray(value) ? value : [value]));
      delete request.headers[header];
    }
    for (const header of [...config.usernameHeaders, ...config.groupHeaders]) delete request.headers[header.toLowerCase()];
    const found: UserInfo = { name: user, groups };
    if (Object.keys(extra).length > 0) found.extra = extra;
    return found;
  };
}

function firstValue(request: IncomingMessage, headers: string[]): string | undefined {
  for (const header of headers) {
    const value = headerValues(request, header).find((candidate) => candidate !== '');
    if (value !== undefined) return value;
  }
  return undefined;
}

/** Plain client-certificate authentication against `clientCA` only (CN user, O groups). */
export function clientCertificateAuthenticator(clientCA: string): Authenticator {
  const roots = bundleFingerprints(clientCA);
  return (request) => {
    const peer = verifiedPeer(request);
    if (!peer) return undefined;
    if (!roots.has(peer.root)) throw new Error('x509: certificate signed by unknown authority');
    const organizations = (peer.certificate.subject as unknown as Record<string, string | string[] | undefined>)['O'];
    const groups = organizations === undefined ? [] : Array.isArray(organizations) ? organizations : [organizations];
    return { name: commonName(peer.certificate), groups: [...groups] };
  };
}
