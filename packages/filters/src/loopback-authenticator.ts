import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { bearerToken, systemPrivilegedGroup, type Authenticator } from './with-authentication.js';

/** The user the server's own loopback client runs as. */
export const loopbackUserName = 'system:apiserver';

/** A fresh random token for the loopback client (as the server generates at start). */
export function generateLoopbackToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Authenticates the server's own loopback client by its bearer token: user `system:apiserver`,
 * a uid random per authenticator, group `system:masters`. Other bearer tokens are left to the next
 * authenticators (none accepting one is a 401, never anonymous).
 */
export function loopbackAuthenticator(token: string, options: { uid?: string } = {}): Authenticator {
  if (token === '') throw new Error('loopback token must not be empty');
  const expected = Buffer.from(token);
  const uid = options.uid ?? randomUUID();
  return (request) => {
    const presented = bearerToken(request);
    if (presented === undefined) return undefined;
    // Not the loopback token: another authenticator may accept it (a token nobody accepts is a 401).
    if (presented.length !== token.length) return undefined;
    if (!timingSafeEqual(Buffer.from(presented), expected)) return undefined;
    return { name: loopbackUserName, uid, groups: [systemPrivilegedGroup] };
  };
}
