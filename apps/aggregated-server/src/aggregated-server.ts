import type { Server as HttpsServer } from 'node:https';
import { Scheme } from '@kapi/apimachinery';
import { RestClient, loadKubeconfig } from '@kapi/client';
import { GenericAPIServerConfig, ensureCertificates, type GenericAPIServer } from '@kapi/server';
import { withStorageVersionPrecondition } from '@kapi/storageversion';
import type { AuthenticationConfig } from './authentication-config.js';
import { BanFlunder } from './ban-flunder.js';
import { subjectAccessReviewAuthorizer } from './delegated-authorization.js';
import { DynamicAuthentication } from './dynamic-authentication.js';
import type { AggregatedServerOptions } from './options.js';
import { registerWithMainServer } from './self-registration.js';
import { publishStorageVersions, type StorageVersionPublisher } from './storage-version-publisher.js';
import { addWardleToScheme } from './wardle-scheme.js';
import { openWardleStorage } from './wardle-storage.js';
import { wardleResources } from './wardle-resources.js';
import { startWardleAdmission } from './wardle-admission.js';

/** A running aggregated server. */
export interface RunningAggregatedServer {
  url: string;
  port: number;
  /** PEM of the CA that signed the serving certificate (the APIServices' caBundle). */
  caPem: string;
  /** Where its objects are stored. */
  storage: string;
  /** Its apiserver identity (identity Lease name and StorageVersion apiServerID), when it publishes them. */
  identity?: string;
  server: GenericAPIServer;
  stop(): Promise<void>;
}

/** How often the main server's authentication ConfigMap is re-read. */
const authenticationRefreshMs = 10_000;

/** The CAs client certificates are verified against (the request-header CA and the client CA). */
function trustedClientCAs(config: AuthenticationConfig): string {
  return [config.requestHeader?.clientCA, config.clientCA].filter(Boolean).join('\n');
}

/** An address the main server can dial: the bind address, or loopback for a wildcard. */
function reachableAddress(bindAddress: string): string {
  return bindAddress === '0.0.0.0' || bindAddress === '' ? '127.0.0.1' : bindAddress === '::' ? '::1' : bindAddress;
}

/**
 * Starts the wardle server: its own storage and watch cache, authentication, authorization and dynamic
 * admission (webhooks, policies) delegated to the main server (`--kubeconfig`), HTTPS with a self-signed CA, then registration of its
 * Service, EndpointSlice, APIServices and RBAC on the main server, and its identity Lease and
 * StorageVersions there (resolves once they are published).
 */
export async function startAggregatedServer(options: AggregatedServerOptions): Promise<RunningAggregatedServer> {
  const main = new RestClient({ ...loadKubeconfig(options.kubeconfig), userAgent: 'wardle-apiserver' });
  const authentication = new DynamicAuthentication(options, main);
  await authentication.load();
  const storage = await openWardleStorage(options);
  const banFlunder = new BanFlunder();
  const publisher: StorageVersionPublisher | undefined = options.publishStorageVersions
    ? publishStorageVersions(main, options.storageVersion)
    : undefined;
  const server = new GenericAPIServerConfig({
    scheme: addWardleToScheme(new Scheme()),
    storage: storage.factory,
    keyPrefix: options.etcdPrefix,
    authenticators: [authentication.authenticator],
    anonymous: true,
    authorizer: subjectAccessReviewAuthorizer(main),
    // Writes wait until the main server holds this server's StorageVersions (upstream's write barrier).
    ...(publisher ? { innermostFilters: [withStorageVersionPrecondition(publisher.manager)] } : {}),
  })
    .complete()
    .new();
  const admission = await startWardleAdmission(main);
  for (const definition of wardleResources({ storageVersion: options.storageVersion, admitFlunder: banFlunder.admit })) {
    server.installResource(admission.admitted(definition));
  }

  const service = `${options.serviceName}.${options.serviceNamespace}.svc`;
  const address = reachableAddress(options.bindAddress);
  const hosts = [...new Set([service, `${service}.cluster.local`, '127.0.0.1', 'localhost', address])];
  const certificates = ensureCertificates(options.dataDir, { hosts });
  const serving = { key: certificates.serving.privateKeyPem, cert: certificates.serving.certificatePem };
  // Client certificates are always asked for (the CAs may appear later in the ConfigMap); until then only
  // this server's own CA, which signs no client certificates, is trusted.
  const clientCA = (config: AuthenticationConfig) => trustedClientCAs(config) || certificates.ca.certificatePem;
  const listening = await server.listen({
    host: options.bindAddress,
    port: options.securePort,
    tls: { ...serving, clientCA: clientCA(authentication.config) },
  });
  const port = listening.port;
  authentication.onChange((config) => (listening.server as HttpsServer).setSecureContext({ ...serving, ca: clientCA(config) }));
  authentication.start(authenticationRefreshMs);
  const url = `https://${address.includes(':') ? `[${address}]` : address}:${port}`;
  const loopback = new RestClient({
    server: url,
    token: server.loopbackClient.bearerToken,
    ca: certificates.ca.certificatePem,
    userAgent: 'wardle-apiserver/loopback',
  });
  banFlunder.start(loopback);
  if (options.register) {
    await registerWithMainServer(main, {
      serviceNamespace: options.serviceNamespace,
      serviceName: options.serviceName,
      address,
      port,
      caBundle: certificates.ca.certificatePem,
    });
  }
  await publisher?.published;
  return {
    url,
    port,
    caPem: certificates.ca.certificatePem,
    storage: storage.describe,
    ...(publisher ? { identity: publisher.identity } : {}),
    server,
    async stop() {
      authentication.stop();
      admission.stop();
      await publisher?.stop();
      await banFlunder.stop();
      await server.shutdown();
      loopback.close();
      main.close();
      await storage.close();
    },
  };
}
