import type { Authenticator, Filter } from '@kapi/filters';
import type { ProtobufBodyDecoder } from '@kapi/server';
import type { Interface } from '@kapi/storage';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, type ServerOptions } from '../options.js';
import { withServiceAccountIssuerDiscovery } from './issuer-discovery.js';
import { serviceAccountTokenAuthenticator, storageObjectGetter } from './service-account-authenticator.js';
import { loadServiceAccountKeys } from './service-account-keys.js';
import type { ServiceAccountTokenSettings } from './service-account-token.js';
import { withTokenRequest } from './token-request.js';

/** What the control plane plugs in for service account tokens. */
export interface ServiceAccountTokens {
  settings: ServiceAccountTokenSettings;
  /** The bearer-token authenticator (also used by TokenReview). */
  authenticator: Authenticator;
  /** After authorization: TokenRequest (`serviceaccounts/token`) and the OIDC issuer discovery documents. */
  filters: Filter[];
}

/**
 * Sets up service account tokens from the `--service-account-*` and `--api-audiences` flags: the keys (the
 * signing key generated in the data dir when not given), the authenticator, and the TokenRequest and discovery
 * endpoints. `storageOf` gives the storage of a core resource once it is installed.
 */
export function setUpServiceAccountTokens(
  options: Pick<ServerOptions, 'dataDir' | 'serviceAccountIssuers' | 'serviceAccountSigningKeyFile' | 'serviceAccountKeyFiles' | 'apiAudiences' | 'serviceAccountMaxTokenExpirationSeconds'>,
  storageOf: (resource: string) => { storage: Interface; prefix: string } | undefined,
  protobuf?: ProtobufBodyDecoder,
): ServiceAccountTokens {
  const issuers = options.serviceAccountIssuers?.length ? options.serviceAccountIssuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const keys = loadServiceAccountKeys({
    dataDir: options.dataDir,
    ...(options.serviceAccountSigningKeyFile ? { signingKeyFile: options.serviceAccountSigningKeyFile } : {}),
    keyFiles: options.serviceAccountKeyFiles ?? [],
  });
  const settings: ServiceAccountTokenSettings = {
    issuers,
    apiAudiences: options.apiAudiences?.length ? options.apiAudiences : [issuers[0] as string],
    keys,
  };
  const getObject = storageObjectGetter(storageOf);
  return {
    settings,
    authenticator: serviceAccountTokenAuthenticator(settings, getObject),
    filters: [
      withTokenRequest({ ...settings, getObject, maxExpirationSeconds: options.serviceAccountMaxTokenExpirationSeconds ?? 0, ...(protobuf ? { protobuf } : {}) }),
      withServiceAccountIssuerDiscovery({ issuer: issuers[0] as string, keys: keys.verificationKeys }),
    ],
  };
}
