import { Scheme } from '@kapi/apimachinery';
import { RestClient, loadKubeconfig } from '@kapi/client';
import type { Authenticator } from '@kapi/filters';
import { GenericAPIServerConfig, ensureCertificates, type GenericAPIServer } from '@kapi/server';
import { loadAuthenticationConfig, type AuthenticationConfig } from './authentication-config.js';
import { BanFlunder } from './ban-flunder.js';
import { tokenReviewAuthenticator } from './delegated-authentication.js';
import { subjectAccessReviewAuthorizer } from './delegated-authorization.js';
import type { AggregatedServerOptions } from './options.js';
import { clientCertificateAuthenticator, requestHeaderAuthenticator } from './request-header-authenticator.js';
import { registerWithMainServer } from './self-registration.js';
import { addWardleToScheme } from './wardle-scheme.js';
import { openWardleStorage } from './wardle-storage.js';
import { wardleResources } from './wardle-resources.js';

/** A running aggregated server. */
export interface RunningAggregatedServer {
  url: string;
  port: number;
  /** PEM of the CA that signed the serving certificate (the APIServices' caBundle). */
  caPem: string;
  /** Where its objects are stored. */
  storage: string;
  server: GenericAPIServer;
  stop(): Promise<void>;
}

/** Delegated authentication, as upstream's: front-proxy headers, then client certificates, then TokenReview. */
function authenticators(config: AuthenticationConfig, main: RestClient): Authenticator[] {
  const list: Authenticator[] = [];
  if (config.requestHeader) list.push(requestHeaderAuthenticator(config.requestHeader));
  if (config.clientCA) list.push(clientCertificateAuthenticator(config.clientCA));
  list.push(tokenReviewAuthenticator(main));
  return list;
}

/** An address the main server can dial: the bind address, or loopback for a wildcard. */
function reachableAddress(bindAddress: string): string {
  return bindAddress === '0.0.0.0' || bindAddress === '' ? '127.0.0.1' : bindAddress === '::' ? '::1' : bindAddress;
}

/**
 * Starts the wardle server: its own storage and watch cache, authentication and authorization
 * delegated to the main server (`--kubeconfig`), HTTPS with a self-signed CA, then registration of its
 * Service, EndpointSlice, APIServices and RBAC on the main server.
 */
export async function startAggregatedServer(options: AggregatedServerOptions): Promise<RunningAggregatedServer> {
  const main = new RestClient({ ...loadKubeconfig(options.kubeconfig), userAgent: 'wardle-apiserver' });
  const authentication = await loadAuthenticationConfig(options, main);
  const storage = await openWardleStorage(options);
  const banFlunder = new BanFlunder();
  const server = new GenericAPIServerConfig({
    scheme: addWardleToScheme(new Scheme()),
    storage: storage.factory,
    keyPrefix: options.etcdPrefix,
    authenticators: authenticators(authentication, main),
    anonymous: true,
    authorizer: subjectAccessReviewAuthorizer(main),
  })
    .complete()
    .new();
  for (const definition of wardleResources({ storageVersion: options.storageVersion, admitFlunder: banFlunder.admit })) {
    server.installResource(definition);
  }

  const service = `${options.serviceName}.${options.serviceNamespace}.svc`;
  const address = reachableAddress(options.bindAddress);
  const hosts = [...new Set([service, `${service}.cluster.local`, '127.0.0.1', 'localhost', address])];
  const certificates = ensureCertificates(options.dataDir, { hosts });
  const clientCA = [authentication.requestHeader?.clientCA, authentication.clientCA].filter(Boolean).join('\n');
  const { port } = await server.listen({
    host: options.bindAddress,
    port: options.securePort,
    tls: {
      key: certificates.serving.privateKeyPem,
      cert: certificates.serving.certificatePem,
      ...(clientCA ? { clientCA } : {}),
    },
  });
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
  return {
    url,
    port,
    caPem: certificates.ca.certificatePem,
    storage: storage.describe,
    server,
    async stop() {
      await banFlunder.stop();
      await server.shutdown();
      loopback.close();
      main.close();
      await storage.close();
    },
  };
}
