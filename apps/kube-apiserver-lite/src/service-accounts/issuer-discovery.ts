import { requestTarget, writeJson, type Filter } from '@kapi/filters';
import { jsonWebKeySet, type VerificationKey } from './service-account-keys.js';

/** Where upstream serves the OIDC provider configuration and the key set. */
export const OPENID_CONFIG_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
/** Upstream's Cache-Control of both documents (1 hour). */
const cacheControl = 'public, max-age=3600';

/** Options of {@link withServiceAccountIssuerDiscovery}. */
export interface IssuerDiscoveryOptions {
  /** The first `--service-account-issuer`. */
  issuer: string;
  /** `--service-account-jwks-uri` upstream; default `<issuer>/openid/v1/jwks`. */
  jwksURI?: string;
  keys: readonly VerificationKey[];
}

/**
 * ServiceAccountIssuerDiscovery: `GET /.well-known/openid-configuration` and `GET /openid/v1/jwks`, so that
 * other parties can verify service account tokens. After authorization (RBAC: the bootstrap ClusterRole
 * `system:service-account-issuer-discovery`, bound to `system:serviceaccounts`).
 */
export function withServiceAccountIssuerDiscovery(options: IssuerDiscoveryOptions): Filter {
  const configuration = {
    issuer: options.issuer,
    jwks_uri: options.jwksURI ?? `${options.issuer.replace(/\/$/, '')}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  };
  const keySet = jsonWebKeySet(options.keys);
  return (next) => (request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return next(request, response);
    const path = requestTarget(request).path;
    if (path === OPENID_CONFIG_PATH) {
      writeJson(response, 200, configuration, { 'Cache-Control': cacheControl });
    } else if (path === JWKS_PATH) {
      writeJson(response, 200, keySet, { 'Content-Type': 'application/jwk-set+json', 'Cache-Control': cacheControl });
    } else {
      return next(request, response);
    }
  };
}
