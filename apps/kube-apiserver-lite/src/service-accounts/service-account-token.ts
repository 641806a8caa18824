import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/filters';
import { decodeJwt, signJwt, verifyJwtSignature } from './jwt.js';
import type { ServiceAccountKeys } from './service-account-keys.js';

/** Reads an object (consistently); undefined when it does not exist. Nodes and other cluster objects: namespace ''. */
export type ObjectGetter = (resource: 'serviceaccounts' | 'secrets' | 'pods' | 'nodes', namespace: string, name: string) => Promise<KubeObject | undefined>;

/** An object a token is bound to (`kubernetes.io.pod`, `.secret`, `.node`). */
export interface BoundObject {
  name: string;
  uid?: string;
}

/** What a new token says. */
export interface TokenClaimsInput {
  serviceAccount: { namespace: string; name: string; uid: string };
  audiences: readonly string[];
  expirationSeconds: number;
  pod?: BoundObject;
  secret?: BoundObject;
  node?: BoundObject;
}

/** The settings tokens are issued and checked with (kube-apiserver's service account flags). */
export interface ServiceAccountTokenSettings {
  /** `--service-account-issuer`: the first one signs, every one is accepted. */
  issuers: readonly string[];
  /** `--api-audiences`: what a token must be meant for (one in common); default the first issuer. */
  apiAudiences: readonly string[];
  keys: ServiceAccountKeys;
  /** Epoch ms; default `Date.now`. */
  now?: () => number;
}

/** How far `exp` and `nbf` may be off (go-jose's DefaultLeeway, which upstream's validator uses). */
export const TOKEN_LEEWAY_SECONDS = 60;
const serviceAccountPrefix = 'system:serviceaccount:';
/** Upstream's extra keys on a service account user. */
export const credentialIdKey = 'authentication.kubernetes.io/credential-id';

/** `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUserName(namespace: string, name: string): string {
  return `${serviceAccountPrefix}${namespace}:${name}`;
}

/** Signs a service account token as upstream's `Claims` + `GenerateToken` do; `expiresAt` is epoch ms. */
export function issueServiceAccountToken(settings: ServiceAccountTokenSettings, input: TokenClaimsInput): { token: string; expiresAt: number; jti: string } {
  const nowSeconds = Math.floor((settings.now ?? Date.now)() / 1000);
  const expiresAt = (nowSeconds + input.expirationSeconds) * 1000;
  const jti = randomUUID();
  const reference = (object: BoundObject) => ({ name: object.name, ...(object.uid ? { uid: object.uid } : {}) });
  const kubernetes: Record<string, unknown> = { namespace: input.serviceAccount.namespace };
  if (input.node) kubernetes.node = reference(input.node);
  if (input.pod) kubernetes.pod = reference(input.pod);
  if (input.secret) kubernetes.secret = reference(input.secret);
  kubernetes.serviceaccount = { name: input.serviceAccount.name, uid: input.serviceAccount.uid };
  // Keys in go-jose's order (it marshals the claims as a map).
  const payload = {
    aud: [...input.audiences],
    exp: nowSeconds + input.expirationSeconds,
    iat: nowSeconds,
    iss: settings.issuers[0] ?? '',
    jti,
    'kubernetes.io': kubernetes,
    nbf: nowSeconds,
    sub: serviceAccountUserName(input.serviceAccount.namespace, input.serviceAccount.name),
  };
  return { token: signJwt(payload, settings.keys.signingKey, settings.keys.signingKeyId), expiresAt, jti };
}

/** What a valid token authenticates as, and the audiences it was accepted for. */
export interface ValidatedToken {
  user: UserInfo;
  audiences: string[];
}

/** Go's `%q` of a string slice: `["a" "b"]`. */
const quotedList = (values: readonly string[]) => `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;

/**
 * Validates a bearer token as upstream's service account JWT authenticator: undefined when it is not a JWT
 * from one of our issuers (another authenticator may know it); an Error with upstream's text when it is one
 * but bad (signature, time, audience, or the service account or bound object gone or replaced).
 * `requestedAudiences` (a TokenReview's `spec.audiences`) default to the API audiences.
 */
export async function validateServiceAccountToken(
  settings: ServiceAccountTokenSettings,
  getObject: ObjectGetter,
  token: string,
  requestedAudiences: readonly string[] = settings.apiAudiences,
): Promise<ValidatedToken | undefined> {
  const jwt = decodeJwt(token);
  if (!jwt || typeof jwt.payload.iss !== 'string' || !settings.issuers.includes(jwt.payload.iss)) return undefined;
  const kid = typeof jwt.header.kid === 'string' ? jwt.header.kid : undefined;
  const candidates = settings.keys.verificationKeys.filter((key) => kid === undefined || key.keyId === kid);
  if (!candidates.some((key) => verifyJwtSignature(jwt, key.publicKey))) throw new Error('go-jose/go-jose: error in cryptographic primitive');
  const claims = jwt.payload;
  const now = (settings.now ?? Date.now)() / 1000;
  if (typeof claims.nbf === 'number' && now + TOKEN_LEEWAY_SECONDS < claims.nbf) throw new Error('service account token is not valid yet');
  if (typeof claims.exp === 'number' && now - TOKEN_LEEWAY_SECONDS > claims.exp) throw new Error('service account token has expired');
  if (typeof claims.iat === 'number' && now + TOKEN_LEEWAY_SECONDS < claims.iat) throw new Error('service account token is issued in the future');

  const tokenAudiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : [];
  const effective = tokenAudiences.length ? tokenAudiences : [...settings.apiAudiences];
  const audiences = effective.filter((audience) => requestedAudiences.includes(audience));
  if (audiences.length === 0 && settings.apiAudiences.length) {
    throw new Error(`token audiences ${quotedList(effective)} is invalid for the target audiences ${quotedList(requestedAudiences)}`);
  }

  const privateClaims = record(claims['kubernetes.io']);
  const namespace = typeof privateClaims.namespace === 'string' ? privateClaims.namespace : '';
  const saRef = reference(privateClaims.serviceaccount);
  if (!namespace || !saRef) throw new Error('service account token claims could not be validated due to unexpected private claim');
  const invalidIfDeletedBefore = (now - TOKEN_LEEWAY_SECONDS) * 1000;
  const deletedTooLongAgo = (object: KubeObject) => {
    const deleted = object.metadata.deletionTimestamp;
    return typeof deleted === 'string' && Date.parse(deleted) < invalidIfDeletedBefore;
  };
  const serviceAccount = await getObject('serviceaccounts', namespace, saRef.name);
  if (!serviceAccount) throw new Error(`serviceaccounts "${saRef.name}" not found`);
  if (deletedTooLongAgo(serviceAccount)) throw new Error(`service account ${namespace}/${saRef.name} has been deleted`);
  const saUid = serviceAccount.metadata.uid ?? '';
  if (saUid !== saRef.uid) throw new Error(`service account UID (${saUid}) does not match claim (${saRef.uid})`);

  const extra: Record<string, string[]> = {};
  const bound = [
    ['secrets', 'secret', reference(privateClaims.secret), namespace],
    ['pods', 'pod', reference(privateClaims.pod), namespace],
    ['nodes', 'node', reference(privateClaims.node), ''],
  ] as const;
  for (const [resource, claim, ref, objectNamespace] of bound) {
    if (!ref) continue;
    // The node of a pod-bound token only informs (upstream checks the node of node-bound tokens alone).
    const informative = claim === 'node' && reference(privateClaims.pod) !== undefined;
    if (!informative) {
      const object = await getObject(resource, objectNamespace, ref.name);
      if (!object || deletedTooLongAgo(object)) throw new Error('service account token has been invalidated');
      const uid = object.metadata.uid ?? '';
      if (uid !== ref.uid) throw new Error(`${claim} UID (${uid}) does not match service account ${claim} ref claim (${ref.uid})`);
    }
    if (claim !== 'secret') {
      extra[`authentication.kubernetes.io/${claim}-name`] = [ref.name];
      if (ref.uid) extra[`authentication.kubernetes.io/${claim}-uid`] = [ref.uid];
    }
  }
  if (typeof claims.jti === 'string' && claims.jti) extra[credentialIdKey] = [`JTI=${claims.jti}`];
  const user: UserInfo = {
    name: serviceAccountUserName(namespace, saRef.name),
    uid: saRef.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
    ...(Object.keys(extra).length ? { extra } : {}),
  };
  return { user, audiences };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function reference(value: unknown): { name: string; uid: string } | undefined {
  const object = record(value);
  if (typeof object.name !== 'string' || !object.name) return undefined;
  return { name: object.name, uid: typeof object.uid === 'string' ? object.uid : '' };
}
