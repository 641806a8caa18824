import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtInGroupPriority, customResourcePriority, webhookServiceResolver } from '@kapi/aggregator';
import { Scheme } from '@kapi/apimachinery';
import { ResourceClient, RestClient, type Lease } from '@kapi/client';
import {
  RBACAuthorizer,
  alwaysAllowAuthorizer,
  clientCertAuthenticator,
  generateLoopbackToken,
  privilegedGroupsAuthorizer,
  tokenFileAuthenticator,
  unionAuthorizer,
  type Authenticator,
  type Authorizer,
  type Filter,
} from '@kapi/filters';
import { apiserverIdentity } from '@kapi/identity';
import {
  AuditLogWriter,
  GenericAPIServerConfig,
  ensureCertificates,
  ensureClientCertificate,
  loadAuditPolicyFile,
  serviceAccountIssuerDiscoveryDocuments,
  writeKubeconfig,
  type GenericAPIServer,
  type ResourceDefinition,
  type StorageFactory,
} from '@kapi/server';
import { Store, type Interface } from '@kapi/storage';
import {
  STORAGE_VERSION_UPDATER_HOOK,
  StorageVersionGarbageCollector,
  StorageVersionManager,
  runStorageVersionUpdater,
  selectedStorageVersionHash,
  storageVersionKind,
  storageVersionResource,
  storageVersionVoteResource,
  withStorageVersionPrecondition,
  type StorageVersion,
} from '@kapi/storageversion';
import { Cacher } from '@kapi/watch-cache';
import { apiExtensionsDelegate } from './apiextensions.js';
import { cohabitingStorage } from './cohabiting-storage.js';
import { customResourceVoting } from './custom-resource-voting.js';
import { LoopbackClient } from './loopback-client.js';
import { createBootstrapRbac, createSystemNamespaces } from './bootstrap.js';
import { NamespaceLookup, namespaceStrategy } from './namespace-lifecycle.js';
import type { ServerOptions } from './options.js';
import { CONTROLLER_MANAGER_HOOK, startControllerManager } from './controller-manager.js';
import { leaderStatusGauge } from './leader-elected.js';
import { RBACCache } from './rbac-cache.js';
import { createAdmission } from './admission.js';
import { withRBACEscalationChecks } from './rbac-escalation.js';
import { authorizationResources, builtInConversions, builtInKinds, builtInResources } from './resources/index.js';
import { installAPIServices } from './apiservices.js';
import { createAggregation, startAggregation } from './aggregation.js';
import { CustomResourceAPIServices } from './crd-apiservices.js';
import { addServiceHooks, createServiceAllocators, withServiceAllocations } from './service-allocations.js';
import { delegationReviewKinds, delegationReviewResources } from './resources/delegation-reviews.js';
import { selfSubjectReviewKind, selfSubjectReviewResource } from './resources/self-subject-review.js';
import { createObservability } from './observability.js';
import { addIdentityLeaseHooks } from './identity-leases.js';
import { createWatchCacheMetrics, observeStorageObjects } from './storage-metrics.js';
import { observeWatchCacheHealth } from './watch-cache-health-metrics.js';
import { builtInProtobufRegistry } from './protobuf/index.js';
import { openStorageBackend } from './storage-backend.js';
import { startEncryptionAtRest } from './encryption-at-rest.js';
import { startStorageVersionMigrator } from './storage-version-migrator.js';
import { migratorMetrics } from './migrator-metrics.js';
import { setUpVoting, type VotingSetup } from './storage-version-voting.js';
import { DEFAULT_STORAGE_INITIALIZATION_TIMEOUT_MS, STORAGE_READINESS_HOOK, storageReadinessHook } from './storage-readiness.js';
import { withConsole } from './console/with-console.js';
import { setUpServiceAccountTokens } from './service-accounts/service-account-tokens.js';

/** A running kube-apiserver-lite. */
export interface RunningControlPlane {
  url: string;
  port: number;
  /** The admin kubeconfig (client certificate in system:masters). */
  kubeconfigPath: string;
  /** This server's identity (its lease name). */
  identity: string;
  server: GenericAPIServer;
  storageVersions?: StorageVersionManager;
  storageVersionGC: StorageVersionGarbageCollector | undefined;
  /** Graceful stop: readyz false, drain, close watches and storage. */
  stop(): Promise<void>;
}

/** Applies `--storage-version group/resource=group/version` to the definitions. */
function applyStorageVersions(definitions: ResourceDefinition[], overrides: Map<string, string>): ResourceDefinition[] {
  const known = new Set(definitions.map((d) => `${d.group}/${d.resource}`));
  for (const key of overrides.keys()) if (!known.has(key)) throw new Error(`--storage-version: unknown resource ${key}`);
  return definitions.map((definition) => {
    const override = overrides.get(`${definition.group}/${definition.resource}`);
    if (!override) return definition;
    const version = override.includes('/') ? override.slice(override.indexOf('/') + 1) : override;
    const group = override.includes('/') ? override.slice(0, override.indexOf('/')) : '';
    if (group !== definition.group || !definition.versions.includes(version)) {
      throw new Error(`--storage-version: ${override} is not a served version of ${definition.resource}`);
    }
    return { ...definition, storageVersion: version };
  });
}

const apiVersionOf = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);

/**
 * Starts kube-apiserver-lite with the given options. The process-wide garbage-collector tuning
 * (`--gc-heap-growth-percent`) is the binary's (main.ts): an embedder calls `tuneGarbageCollector` itself.
 */
export async function startControlPlane(options: ServerOptions, log: (message: string) => void = () => undefined): Promise<RunningControlPlane> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  chmodSync(options.dataDir, 0o700); // owner-only whatever the umask, as the keys and database inside
  const encryption = options.encryptionProviderConfig
    ? startEncryptionAtRest(options.encryptionProviderConfig, options.encryptionProviderConfigAutomaticReload, log)
    : undefined;
  const backend = await openStorageBackend(options);
  log(`storage: ${backend.describe}`);

  const scheme = new Scheme();
  for (const kind of builtInKinds) scheme.addKind(kind);
  for (const kind of delegationReviewKinds) scheme.addKind(kind);
  scheme.addKind(selfSubjectReviewKind);
  if (options.storageVersionAPI) scheme.addKind(storageVersionKind);
  for (const conversion of builtInConversions) scheme.addConversion(conversion);

  const definitions = applyStorageVersions(builtInResources, options.storageVersions);
  const identity = apiserverIdentity(options.hostnameOverride);
  const voting =
    options.storageVersionMode === 'vote'
      ? setUpVoting({ scheme, kv: backend.kv, keyPrefix: options.etcdPrefix, identity, definitions })
      : undefined;

  const storages = new Map<string, { storage: Interface; prefix: string }>();
  const observability = createObservability();
  const cacheMetrics = createWatchCacheMetrics(observability.metrics.registry);
  observeStorageObjects(observability.metrics, storages);
  const caches = new Map<string, Cacher>();
  observeWatchCacheHealth(observability.metrics, caches);
  const storageFactory: StorageFactory = ({ groupResource, prefix, codec: resourceCodec, definition }) => {
    // events.k8s.io events are the core events: same prefix, core/v1 encoding, core's encryption.
    const cohabiting = cohabitingStorage(scheme, groupResource);
    const codec = cohabiting?.codec ?? resourceCodec;
    const transformer = encryption?.transformers.transformerFor(cohabiting?.storedAs ?? groupResource);
    const store = voting?.applies(definition) ? new Store(voting.storageFor(definition, prefix, codec)) : new Store({ kv: backend.kv, codec, transformer });
    let storage: Interface = store;
    if (options.watchCache) {
      const cacher = new Cacher({
        storage: store,
        resourcePrefix: prefix,
        loadHistory: options.watchCacheHistory,
        progressNotify: options.watchCacheProgressNotify,
        // Embedded stores know their revision in-process: a consistent GET is cheaper from the cache.
        consistentGetFromCache: options.storage !== 'etcd',
        ...(definition.strategy?.getAttributes ? { getAttributes: definition.strategy.getAttributes } : {}),
        metrics: cacheMetrics(groupResource.group, groupResource.resource),
      });
      void cacher.start();
      storage = cacher;
      caches.set(`${groupResource.group}/${groupResource.resource}`, cacher);
    }
    storages.set(`${groupResource.group}/${groupResource.resource}`, { storage, prefix });
    return storage;
  };

  const loopbackToken = generateLoopbackToken();
  // The config puts the loopback token's authenticator first.
  const authenticators: Authenticator[] = [];
  if (options.tokenAuthFile) authenticators.push(tokenFileAuthenticator({ path: options.tokenAuthFile }));
  const serviceAccountTokens = setUpServiceAccountTokens(options, (resource) => storages.get(`/${resource}`), builtInProtobufRegistry);
  authenticators.push(serviceAccountTokens.authenticator);
  const tokenAuthenticators = [...authenticators];
  authenticators.push(clientCertAuthenticator());

  const rbacStorage = (resource: string) => {
    const entry = storages.get(`rbac.authorization.k8s.io/${resource}`);
    if (!entry) throw new Error(`rbac resource ${resource} is not installed`);
    return entry;
  };
  const rbacCache = new RBACCache(() => ({
    roles: rbacStorage('roles'),
    clusterRoles: rbacStorage('clusterroles'),
    roleBindings: rbacStorage('rolebindings'),
    clusterRoleBindings: rbacStorage('clusterrolebindings'),
  }));
  const rbac = new RBACAuthorizer(rbacCache);
  const authorizers: Authorizer[] = [privilegedGroupsAuthorizer(['system:masters'])];
  for (const mode of options.authorizationModes) authorizers.push(mode === 'RBAC' ? rbac : alwaysAllowAuthorizer);
  const authorizer = unionAuthorizer(...authorizers);

  if (backend.sqliteStats) observability.watchSqlite(backend.sqliteStats);
  if (backend.healthCheck) observability.health.addCheck(backend.healthCheck.name, backend.healthCheck.check);
  const manager = options.storageVersionAPI
    ? new StorageVersionManager({ onUpdate: (gr, outcome) => observability.storageVersionUpdate(gr, outcome) })
    : undefined;
  const innermostFilters: Filter[] = manager ? [withStorageVersionPrecondition(manager)] : [];
  // Remote APIServices are proxied after authentication and authorization (as kube-aggregator).
  const aggregation = createAggregation(options);
  innermostFilters.unshift(aggregation.layer.filter);
  if (options.console) innermostFilters.push(withConsole());
  innermostFilters.push(...serviceAccountTokens.filters);

  // Assigned with the voter's start hook below; custom resources vote once it has run.
  let voterStarted: () => Promise<void> = () => Promise.reject(new Error('storage version voting is not set up'));
  const resolveService = webhookServiceResolver(aggregation.layer.services); // conversion and admission webhooks' Services
  const admission = createAdmission({ storage: (key) => storages.get(key), lookup: () => lookup, resolveService, metrics: observability.metrics.registry, rest: () => rest() });
  const apiextensions = apiExtensionsDelegate({
    scheme,
    storage: storageFactory,
    keyPrefix: options.etcdPrefix,
    metrics: observability.metrics,
    health: observability.health,
    loopback: () => rest(), resolveService,
  }, (definition) => admission.admitted(definition), new CustomResourceAPIServices(() => rest(), log), manager && {
    manager,
    identity,
    storageVersions: () => new ResourceClient<StorageVersion>(rest(), storageVersionRef),
    ...(voting && customResourceVoting({ voting, manager, identity, storageVersions: () => new ResourceClient<StorageVersion>(rest(), storageVersionRef), voterStarted: () => voterStarted() })),
  });
  const server = new GenericAPIServerConfig({
    scheme,
    storage: storageFactory,
    keyPrefix: options.etcdPrefix,
    authenticators,
    anonymous: options.anonymousAuth,
    authorizer,
    innermostFilters,
    maxRequestsInFlight: options.maxRequestsInFlight,
    maxMutatingRequestsInFlight: options.maxMutatingRequestsInFlight,
    http2MaxStreamsPerConnection: options.http2MaxStreamsPerConnection,
    // As upstream's aggregator: groups by their APIServices' priority (custom resource groups get 1000).
    discoveryGroupPriority: (group) =>
      Math.max(builtInGroupPriority(group) ?? 0, aggregation.layer.discovery.groupPriority(group) ?? 0) || customResourcePriority[0],
    // Served by the service account issuer discovery filter; listed in /openapi/v3 as upstream lists them.
    openAPIV3Documents: serviceAccountIssuerDiscoveryDocuments,
    requestTimeoutMs: options.requestTimeoutSeconds * 1000,
    corsAllowedOrigins: options.corsAllowedOrigins,
    loopbackToken,
    metrics: observability.metrics,
    health: observability.health,
    protobuf: builtInProtobufRegistry,
    ...(options.auditPolicyFile && options.auditLog
      ? { audit: { policy: loadAuditPolicyFile(options.auditPolicyFile), sink: new AuditLogWriter(options.auditLog) } }
      : {}),
  })
    .complete()
    .new(apiextensions);

  // Namespaces first: every namespaced resource's admission reads them.
  const namespacesDefinition = definitions.find((d) => d.group === '' && d.resource === 'namespaces');
  if (!namespacesDefinition) throw new Error('namespaces are not defined');
  const namespaceStore = server.installResource({ ...namespacesDefinition, strategy: namespaceStrategy(namespacesDefinition.strategy) });
  const lookup = new NamespaceLookup(namespaceStore.storage, namespaceStore.prefix);
  const installed: ResourceDefinition[] = [namespacesDefinition];
  const serviceAllocators = createServiceAllocators(backend.kv, options.etcdPrefix, options, () => storages.get('/services'));
  for (const definition of withRBACEscalationChecks(withServiceAllocations(definitions, serviceAllocators), rbac)) {
    if (definition === namespacesDefinition) continue;
    server.installResource(admission.admitted(definition));
    const cohabiting = cohabitingStorage(scheme, definition);
    if (cohabiting) server.setStorageVersionHash(definition.group, definition.resource, cohabiting.storageVersionHash);
    installed.push(definition);
  }
  for (const definition of authorizationResources({ rulesFor: (user, namespace) => rbac.rulesFor(user, namespace) })) {
    server.installVirtualResource(definition);
  }
  for (const definition of delegationReviewResources({ authenticators: tokenAuthenticators })) {
    server.installVirtualResource(definition);
  }
  server.installVirtualResource(selfSubjectReviewResource);
  if (voting) server.installResource(storageVersionVoteResource);
  installed.push(installAPIServices(scheme, server, () => rest()));
  if (options.storageVersionAPI) {
    server.installResource(storageVersionResource);
    for (const definition of installed) {
      const storageVersion = definition.storageVersion ?? definition.versions[0] ?? '';
      const encodingVersion = cohabitingStorage(scheme, definition)?.encodingVersion ?? apiVersionOf(definition.group, storageVersion);
      manager?.addResourceInfo({
        groupResource: { group: definition.group, resource: definition.resource },
        encodingVersion,
        decodableVersions: [...new Set([encodingVersion, ...definition.versions.map((v) => apiVersionOf(definition.group, v))])],
        servedVersions: definition.versions.map((v) => apiVersionOf(definition.group, v)),
      });
    }
  }

  await Promise.all([rbacCache.start(), admission.start()]);

  const hosts = [...new Set(['127.0.0.1', 'localhost', options.hostnameOverride, options.bindAddress].filter((h) => h && h !== '0.0.0.0'))];
  const certificates = ensureCertificates(options.dataDir, { hosts });
  const clientCA = options.clientCAFile ? readFileSync(options.clientCAFile, 'utf8') : certificates.ca.certificatePem;

  // Controllers talk to the server through the loopback client (as system:apiserver): their watches over
  // a connection, everything else in process.
  const controllers: Array<() => Promise<void> | void> = [];
  if (encryption) controllers.push(() => encryption.stop());
  const loopback: { current?: RestClient } = {};
  const rest = () => {
    if (!loopback.current) {
      loopback.current = new LoopbackClient({
        server: server.loopbackClient.url.replace('0.0.0.0', '127.0.0.1'),
        token: loopbackToken,
        ca: certificates.ca.certificatePem,
        userAgent: 'kube-apiserver-lite/loopback',
        // Requests other than watches go through the handler chain in process (no TLS, socket or parsing).
        inProcess: (call) => server.serveInProcess(call),
      }, manager);
    }
    return loopback.current;
  };
  server.addPostStartHook(
    STORAGE_READINESS_HOOK,
    storageReadinessHook(() => [...storages.values()].map((entry) => entry.storage), options.storageInitializationTimeoutMs ?? DEFAULT_STORAGE_INITIALIZATION_TIMEOUT_MS, log),
  );
  // The leader-elected controllers' leases live in kube-system: they campaign once it exists.
  let systemNamespacesCreated: () => void = () => undefined;
  let systemNamespacesFailed: (error: unknown) => void = () => undefined;
  const systemNamespaces = new Promise<void>((resolve, reject) => ((systemNamespacesCreated = resolve), (systemNamespacesFailed = reject)));
  systemNamespaces.catch(() => undefined); // the hook reports the failure; campaigns log it
  server.addPostStartHook('start-system-namespaces-controller', ({ signal }) =>
    createSystemNamespaces(rest(), signal).then(systemNamespacesCreated, (error: unknown) => {
      systemNamespacesFailed(error);
      throw error;
    }),
  );
  server.addPostStartHook('rbac/bootstrap-roles', ({ signal }) => createBootstrapRbac(rest(), signal));
  const leases = () => new ResourceClient<Lease>(rest(), leaseRef);
  const leaderStatus = leaderStatusGauge(observability.metrics.registry);
  server.addPostStartHook(CONTROLLER_MANAGER_HOOK, () => {
    // Custom resources served through delegation count too (namespace content, garbage collection).
    const custom = () => apiextensions.installedResources().map((entry) => entry.definition);
    const controllerManager = startControllerManager({
      rest: rest(),
      leases: leases(),
      identity,
      log,
      resources: () => [...installed, ...custom()],
      // From the watch caches in process: a watch of every resource over loopback cost each write ~50 µs.
      storageOf: ({ group, resource }) => server.resourceStorage(group, resource) ?? apiextensions.resourceStorage(group, resource),
      enableGarbageCollector: options.enableGarbageCollector ?? true,
      metricsRegistry: observability.metrics.registry,
      status: leaderStatus,
      systemNamespaces,
    });
    controllers.push(() => controllerManager.stop());
    return Promise.resolve();
  });

  addServiceHooks(server, { allocators: serviceAllocators, servicesStorage: () => storages.get('/services'), rest, bindAddress: options.bindAddress, systemNamespaces, controllers, log });
  startAggregation(aggregation, { server, rest, clientCA, allowedNames: options.requestheaderAllowedNames, controllers });
  if (options.apiServerIdentity) addIdentityLeaseHooks(server, { leases, identity, options, controllers });
  let storageVersionGC: StorageVersionGarbageCollector | undefined;
  if (options.storageVersionAPI && manager) {
    const storageVersions = () => new ResourceClient<StorageVersion>(rest(), storageVersionRef);
    // The voter starts inside its hook (the loopback client exists only once the server listens).
    let voted: Promise<void> | undefined;
    const vote = () => {
      if (!voting) return Promise.resolve();
      voted ??= startVoting(voting, manager, { leases, storageVersions, identity, installed, controllers, server, log }).ready;
      return voted;
    };
    voterStarted = vote;
    if (voting) server.addPostStartHook('start-storage-version-voter', vote);
    server.addPostStartHook(STORAGE_VERSION_UPDATER_HOOK, async ({ signal }) => {
      await vote();
      // Polled every 100 ms (not 1 s): /readyz waits for this hook, so a coarse poll only delays readiness.
      await runStorageVersionUpdater({ manager, leases: leases(), storageVersions: storageVersions(), serverID: identity, signal, completedPollMs: 100 });
    });
    if (options.storageVersionMigrator) {
      const observer = migratorMetrics(observability.metrics.registry);
      server.addPostStartHook('start-storage-version-migrator', () => {
        const migrator = startStorageVersionMigrator({ rest: rest(), leases: leases(), identity, log, observer, status: leaderStatus, systemNamespaces });
        controllers.push(() => migrator.stop());
        return Promise.resolve();
      });
    }
    server.addPostStartHook('start-storage-version-garbage-collector', () => {
      storageVersionGC = new StorageVersionGarbageCollector({
        leases: leases(),
        storageVersions: new ResourceClient<StorageVersion>(rest(), storageVersionRef),
        identity,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
        onAction: ({ storageVersion, removedServers, deleted }) =>
          log(`storage version GC: removed ${removedServers.join(', ')} from ${storageVersion}${deleted ? ' (deleted it)' : ''}`),
      });
      const collector = storageVersionGC;
      let stopped = false;
      // Its lease lives in kube-system too: it campaigns once that exists.
      void systemNamespaces.then(() => stopped || collector.start(), () => undefined);
      controllers.push(() => {
        stopped = true;
        return collector.stop();
      });
      return Promise.resolve();
    });
  }

  const { url, port } = await server.listen({
    host: options.bindAddress,
    port: options.securePort,
    tls: { key: certificates.serving.privateKeyPem, cert: certificates.serving.certificatePem, clientCA },
  });
  const publicUrl = url.replace('0.0.0.0', '127.0.0.1');

  const kubeconfigPath = options.kubeconfigPath ?? join(options.dataDir, 'admin.kubeconfig');
  // Kept beside the CA (admin.crt, admin.key) and reused across restarts: issuing one costs about half a second.
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

  observability.start(manager);
  controllers.push(() => observability.stop());
  let stopped = false;
  return {
    url: publicUrl,
    port,
    kubeconfigPath,
    identity,
    server,
    ...(manager ? { storageVersions: manager } : {}),
    get storageVersionGC() {
      return storageVersionGC;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const stop of controllers) await stop();
      for (const cache of [rbacCache, admission]) cache.stop();
      await server.shutdown();
      loopback.current?.close();
      await backend.close();
    },
  };
}

/**
 * Voting mode at start: wait for this server's identity lease, vote on every voted resource, follow the
 * selection keys, and publish the selected version as the StorageVersion encoding version (again on a switch).
 */
function startVoting(
  voting: VotingSetup,
  manager: StorageVersionManager,
  context: {
    leases: () => ResourceClient<Lease>;
    storageVersions: () => ResourceClient<StorageVersion>;
    identity: string;
    installed: ResourceDefinition[];
    controllers: Array<() => Promise<void> | void>;
    server: GenericAPIServer;
    log: (message: string) => void;
  },
): { ready: Promise<void> } {
  const voted = context.installed.filter((definition) => voting.applies(definition));
  // A switch replaces the info without the write barrier: writes are conditioned on the selection (no downtime).
  const publish = (definition: ResourceDefinition, switched = false) => {
    const selected = voting.voter.selectedVersion({ group: definition.group, resource: definition.resource }) ?? definition.versions[0] ?? '';
    context.server.setStorageVersionHash(definition.group, definition.resource, selectedStorageVersionHash(definition.group, definition.kind, selected));
    manager[switched ? 'replaceResourceInfo' : 'addResourceInfo']({
      groupResource: { group: definition.group, resource: definition.resource },
      encodingVersion: apiVersionOf(definition.group, selected),
      decodableVersions: definition.versions.map((v) => apiVersionOf(definition.group, v)),
      servedVersions: definition.versions.map((v) => apiVersionOf(definition.group, v)),
    });
  };
  const ready = (async () => {
    for (;;) {
      const lease = await context.leases().get('kube-system', context.identity).catch(() => undefined);
      if (lease) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await voting.voter.voteAll();
    for (const name of await voting.voter.collectGarbage()) context.log(`storage version voting: deleted the vote of ${name} (no live apiserver votes for it)`);
    await voting.voter.start();
    context.controllers.push(() => voting.voter.stop());
    for (const definition of voted) publish(definition);
    voting.voter.onSelectionChange((change) => {
      const definition = voted.find((d) => d.group === change.groupResource.group && d.resource === change.groupResource.resource);
      if (!definition) return;
      publish(definition, true);
      void manager.updateStorageVersions(context.identity, { storageVersions: context.storageVersions() });
    });
  })();
  return { ready };
}

const leaseRef = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true };
const storageVersionRef = { group: 'internal.apiserver.k8s.io', version: 'v1alpha1', resource: 'storageversions', namespaced: false };
