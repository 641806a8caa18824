import type { TLSSocket } from 'node:tls';
import type { UserInfo } from './handler.js';
import type { Authenticator } from './with-authentication.js';

/**
 * Authenticates TLS client certificates. The server verifies them against the client CA
 * (`requestCert: true, rejectUnauthorized: false`); this accepts only verified peers
 * (`socket.authorized`): subject CN is the user, each O a group. A certificate that failed
 * verification is an error; no certificate means no opinion. A connection's peer certificate is
 * read, verified and mapped once: every later request on it reuses the outcome (reading the certificate
 * builds a new object from the X.509 data each time, a cost paid per request before).
 */
export function clientCertAuthenticator(): Authenticator {
  const outcomes = new WeakMap<object, { user: UserInfo | undefined } | { error: Error }>();
  return (request) => {
    const socket = request.socket as Partial<TLSSocket>;
    if (typeof socket.getPeerCertificate !== 'function') return undefined;
    // Over HTTP/2, `request.socket` is a new proxy per stream: the connection is the stream's session.
    const connection: object = (request as { stream?: { session?: object } }).stream?.session ?? socket;
    let outcome = outcomes.get(connection);
    if (!outcome) {
      try {
        outcome = { user: peerUser(socket as TLSSocket) };
      } catch (error) {
        outcome = { error: error as Error };
      }
      outcomes.set(connection, outcome);
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.user && { name: outcome.user.name, groups: [...(outcome.user.groups ?? [])] };
  };
}

/** The user of a TLS connection's verified peer certificate; undefined without one (or without a CN). */
function peerUser(socket: TLSSocket): UserInfo | undefined {
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
  return { name: commonName, groups: [...groups] };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
