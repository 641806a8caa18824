import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';

/** The SHA-256 fingerprints of every certificate in a PEM bundle (`AB:CD:...`, as Node reports them). */
export function bundleFingerprints(pem: string): Set<string> {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return new Set(blocks.map((block) => new X509Certificate(block).fingerprint256));
}

type VerifiedPeer = { certificate: DetailedPeerCertificate; root: string } | undefined;

/** What {@link verifiedPeer} found per TLS socket: the peer of a keep-alive connection is read once, not per request. */
const peers = new WeakMap<object, VerifiedPeer>();

/**
 * The peer certificate of a request that the TLS layer verified, with the fingerprint of the root its
 * chain ends in; undefined when the client sent none. A certificate that failed verification throws
 * (upstream's `x509: certificate signed by unknown authority`).
 */
export function verifiedPeer(request: IncomingMessage): VerifiedPeer {
  const socket = request.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  if (peers.has(socket)) return peers.get(socket);
  const certificate = socket.getPeerCertificate(true);
  if (!certificate || Object.keys(certificate).length === 0) {
    peers.set(socket, undefined);
    return undefined;
  }
  if (!socket.authorized) {
    const reason = socket.authorizationError instanceof Error ? socket.authorizationError.message : String(socket.authorizationError);
    throw new Error(`verifying certificate SN=${certificate.serialNumber} failed: x509: ${reason}`);
  }
  let root = certificate;
  while (root.issuerCertificate && root.issuerCertificate !== root && root.issuerCertificate.fingerprint256 !== root.fingerprint256) {
    root = root.issuerCertificate;
  }
  const peer = { certificate, root: root.fingerprint256 };
  peers.set(socket, peer);
  return peer;
}

/** The values of one subject attribute (`CN`, `O`) of a certificate. */
export function subjectField(certificate: DetailedPeerCertificate, name: string): string[] {
  const value = (certificate.subject as unknown as Record<string, string | string[] | undefined>)[name];
  return value === undefined ? [] : Array.isArray(value) ? [...value] : [value];
}
