import type { Authenticator } from '@kapi/filters';
import { bundleFingerprints, subjectField, verifiedPeer } from './verified-peer.js';

/** Plain client-certificate authentication against `clientCA` only (CN user, O groups). */
export function clientCertificateAuthenticator(clientCA: string): Authenticator {
  const roots = bundleFingerprints(clientCA);
  return (request) => {
    const peer = verifiedPeer(request);
    if (!peer) return undefined;
    if (!roots.has(peer.root)) throw new Error('x509: certificate signed by unknown authority');
    return { name: subjectField(peer.certificate, 'CN')[0] ?? '', groups: subjectField(peer.certificate, 'O') };
  };
}
