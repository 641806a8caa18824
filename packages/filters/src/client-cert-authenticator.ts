import type { TLSSocket } from 'node:tls';
import type { UserInfo } from './handler.js';
import type { Authenticator } from './with-authentication.js';

/**
 * Authenticates TLS client certificates. The server verifies them against the client CA
 * (`requestCert: true, rejectUnauthorized: false`); this accepts only verified peers
 * (`socket.authorized`): subject CN is the user, each O a group. A certificate that failed
 * verification is an error; no certificate means no opinion.
 */
export function clientCertAuthenticator(): Authenticator {
  return (request) => {
    const socket = request.socket as Partial<TLSSocket>;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    const certificate = socket.getPeerCertificate();
    if (!certificate || Object.keys(certificate).length === 0) return undefined;
    if (!socket.authorized) {
      const reason =
        socket.authorizationError instanceof Error
          ? socket.authorizationError.message
          : String(socket.authorizationError ?? 'unknown');
      throw new Error(`verifying certificate SN=${certificate.serialNumber} failed: ${reason}`);
    }
    const subject = (certificate.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
    const commonName = first(subject.CN);
    if (!commonName) return undefined;
    const organizations = subject.O;
    const groups =
      organizations === undefined ? [] : Array.isArray(organizations) ? organizations : [organizations];
    const user: UserInfo = { name: commonName, groups: [...groups] };
    return user;
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
