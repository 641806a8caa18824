import type { IncomingMessage } from 'node:http';
import { bearerToken, type Authenticator } from '@kapi/filters';
import { objectKey } from '@kapi/server';
import type { Interface } from '@kapi/storage';
import { decodeJwt } from './jwt.js';
import { validateServiceAccountToken, type ObjectGetter, type ServiceAccountTokenSettings } from './service-account-token.js';

/** Audiences a TokenReview asks for, keyed by the request it authenticates (default: the API audiences). */
const requestedAudiences = new WeakMap<IncomingMessage, readonly string[]>();

/** Makes the service account authenticator check `request`'s token against `audiences` (a TokenReview's `spec.audiences`). */
export function setRequestedAudiences(request: IncomingMessage, audiences: readonly string[]): void {
  if (audiences.length) requestedAudiences.set(request, audiences);
}

/**
 * Authenticates bearer tokens that are service account JWTs of one of our issuers (upstream's service account
 * token authenticator): the user `system:serviceaccount:<namespace>:<name>`. Other bearer tokens are left to the
 * other authenticators (undefined, at once); a bad one of ours fails with upstream's error text.
 */
export function serviceAccountTokenAuthenticator(settings: ServiceAccountTokenSettings, getObject: ObjectGetter): Authenticator {
  return (request) => {
    const token = bearerToken(request);
    if (token === undefined) return undefined;
    const jwt = decodeJwt(token);
    if (!jwt || typeof jwt.payload.iss !== 'string' || !settings.issuers.includes(jwt.payload.iss)) return undefined;
    return validateServiceAccountToken(settings, getObject, token, requestedAudiences.get(request)).then((validated) => validated?.user);
  };
}

/**
 * Reads service accounts, secrets, pods and nodes straight from their storage (consistent reads: a deleted
 * service account stops authenticating at once). `storageOf` gives undefined for a resource the server does not
 * serve, whose objects then never exist.
 */
export function storageObjectGetter(storageOf: (resource: string) => { storage: Interface; prefix: string } | undefined): ObjectGetter {
  return async (resource, namespace, name) => {
    const entry = storageOf(resource);
    if (!entry) return undefined;
    return entry.storage.get(objectKey(entry.prefix, namespace, name), { ignoreNotFound: true, resourceVersion: '' });
  };
}
