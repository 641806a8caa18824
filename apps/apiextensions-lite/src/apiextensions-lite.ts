import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Scheme } from '@kapi/apimachinery';
import { createAPIExtensionsServer } from '@kapi/apiextensions';
import { RestClient } from '@kapi/client';
import {
  clientCertAuthenticator,
  generateLoopbackToken,
  privilegedGroupsAuthorizer,
  alwaysAllowAuthorizer,
  tokenFileAuthenticator,
  unionAuthorizer,
  type Authenticator,
} from '@kapi/filters';
import {
  DEFAULT_STORAGE_INITIALIZATION_TIMEOUT_MS,
  STORAGE_READINESS_HOOK,
  openStorageBackend,
  storageReadinessHook,
  type ServerOptions,
} from '@kapi/kube-apiserver-lite';
import { ensureCertificates, ensureClientCertificate, writeKubeconfig, type GenericAPIServer, type StorageFactory } from '@kapi/server';
import { Store, type Interface } from '@kapi/storage';
import { Cacher } from '@kapi/watch-cache';

/** A running apiextensions-lite. */
export interface RunningAPIExtensionsServer {
  url: string;
  port: number;
  /** The admin kubeconfig (client certificate in system:masters). */
  kubeconfigPath: string;
  server: GenericAPIServer;
  stop(): Promise<void>;
}

/**
 * Starts a server that serves only CustomResourceDefinitions and their custom resources, with
 * kube-apiserver-lite's flags, storage backends, certificates and kubeconfig. Authorization is
 * system:masters, plus AlwaysAllow when `--authorization-mode` names it (there is no RBAC API here).
 */
export async function startAPIExtensionsLite(options: ServerOptions): Promise<RunningAPIExtensionsServer> {
  mkdirSync(options.dataDir, { recursive: true });
  const backend = await openStorageBackend(options);
  const storages: Interface[] = [];
  const storage: StorageFactory = ({ prefix, codec, definition }) => {
    const store = new Store({ kv: backend.kv, codec });
    if (!options.watchCache) return store;
    const cacher = new Cacher({
      storage: store,
      resourcePrefix: prefix,
      loadHistory: options.watchCacheHistory,
      consistentGetFromCache: options.storage !== 'etcd',
      ...(definition.strategy?.getAttributes ? { getAttributes: definition.strategy.getAttributes } : {}),
    });
    void cacher.start();
    storages.push(cacher);
    return cacher satisfies Interface;
  };
  const loopbackToken = generateLoopbackToken();
  const authenticators: Authenticator[] = [];
  if (options.tokenAuthFile) authenticators.push(tokenFileAuthenticator({ path: options.tokenAuthFile }));
  authenticators.push(clientCertAuthenticator());
  const authorizer = options.authorizationModes.includes('AlwaysAllow')
    ? unionAuthorizer(privilegedGroupsAuthorizer(['system:masters']), alwaysAllowAuthorizer)
    : privilegedGroupsAuthorizer(['system:masters']);

  const hosts = [...new Set(['127.0.0.1', 'localhost', options.hostnameOverride, options.bindAddress].filter((h) => h && h !== '0.0.0.0'))];
  const certificates = ensureCertificates(options.dataDir, { hosts });
  const loopback: { current?: RestClient } = {};
  const { server } = createAPIExtensionsServer({
    scheme: new Scheme(),
    storage,
    keyPrefix: options.etcdPrefix,
    authenticators,
    anonymous: options.anonymousAuth,
    authorizer,
    loopbackToken,
    requestTimeoutMs: options.requestTimeoutSeconds * 1000,
    http2MaxStreamsPerConnection: options.http2MaxStreamsPerConnection,
    loopback: () =>
      (loopback.current ??= new RestClient({
        server: server.loopbackClient.url.replace('0.0.0.0', '127.0.0.1'),
        token: loopbackToken,
        ca: certificates.ca.certificatePem,
        userAgent: 'apiextensions-lite/loopback',
      })),
  });
  // As kube-apiserver-lite: /readyz waits for the watch caches (the CRDs' one) before reporting ready.
  server.addPostStartHook(
    STORAGE_READINESS_HOOK,
    storageReadinessHook(
      () => storages,
      options.storageInitializationTimeoutMs ?? DEFAULT_STORAGE_INITIALIZATION_TIMEOUT_MS,
      (message) => process.stderr.write(`${message}\n`),
    ),
  );
  const clientCA = options.clientCAFile ? readFileSync(options.clientCAFile, 'utf8') : certificates.ca.certificatePem;
  const { url, port } = await server.listen({
    host: options.bindAddress,
    port: options.securePort,
    tls: { key: certificates.serving.privateKeyPem, cert: certificates.serving.certificatePem, clientCA },
  });
  const publicUrl = url.replace('0.0.0.0', '127.0.0.1');
  const kubeconfigPath = options.kubeconfigPath ?? join(options.dataDir, 'admin.kubeconfig');
  const admin = ensureClientCertificate(certificates.ca, join(options.dataDir, 'admin.crt'), join(options.dataDir, 'admin.key'), {
    commonName: 'kubernetes-admin',
    organizations: ['system:masters'],
  });
  writeKubeconfig(kubeconfigPath, {
    server: publicUrl,
    caData: certificates.ca.certificatePem,
    user: { clientCertificateData: admin.certificatePem, clientKeyData: admin.privateKeyPem },
    contextName: 'kapi',
  });
  return {
    url: publicUrl,
    port,
    kubeconfigPath,
    server,
    async stop() {
      await server.shutdown();
      loopback.current?.close();
      await backend.close();
    },
  };
}
