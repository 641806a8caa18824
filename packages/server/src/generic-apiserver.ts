import { createServer as createHttpServer, Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import {
  StatusError,
  storageVersionHash,
  type GroupResource,
  type StorageVersionInfo,
} from '@kapi/apimachinery';
import {
  afterHandling,
  buildHandlerChain,
  closeConnectionAfter,
  requestContext,
  requestTarget,
  writeStatus,
  type CompletionStep,
  type Handler,
} from '@kapi/filters';
import { isCloser, type Interface } from '@kapi/storage';
import { byGroupPriority, createDiscoveryHandler, type InstalledResource } from './discovery/index.js';
import type { PathHandler } from './discovery/http-response.js';
import type { CompletedOptions } from './generic-apiserver-config.js';
import { handleResourceRequest, type HandlerEnvironment, type ResourceRoute } from './handlers/resource-handler.js';
import type { Endpoint } from './handlers/decode-object.js';
import { handleVirtualRequest } from './handlers/virtual-handler.js';
import { handleScaleRequest } from './handlers/scale-handler.js';
import { parseResourcePath } from './handlers/resource-path.js';
import { configuredFilters } from './server-filters.js';
import { storageVersionInfosOf } from './storage-version-infos.js';
import { WatchRegistry } from './handlers/watch-handler.js';
import { serveInProcess, type InProcessAnswer, type InProcessRequest } from './in-process-exchange.js';
import { HealthRegistry, type PostStartHook } from './health/index.js';
import { ServerMetrics } from './metrics/index.js';
import { createOpenAPIHandler, type JSONSchema } from './openapi/index.js';
import { GenericStore } from './registry/generic-store.js';
import { instrumentStorage } from './registry/instrumented-storage.js';
import { resourcePrefix } from './registry/storage-keys.js';
import { definitionAt, type ResourceDefinition } from './resource-definition.js';
import { createVersionHandler } from './version.js';
import { answerClientError } from './client-error-status.js';
import { createSecureAPIServer, type SecureServer } from './secure-server.js';
import { answered, answerFailures } from './handlers/route-completion.js';
import { observeResourceRequest } from './metrics/observe-request.js';
import type { AggregatedDiscoverySource, ListenOptions, LoopbackClientConfig } from './generic-apiserver-types.js';

export type { AggregatedDiscoverySource, ListenOptions, LoopbackClientConfig } from './generic-apiserver-types.js';

const notFound = () =>
  StatusError.of(404, 'NotFound', 'the server could not find the requested resource', {});

const shutdownExemptPaths = ['/healthz', '/livez', '/readyz'];
/** How long shutdown lets watches write their final bookmark and end before it ends them. */
const WATCH_END_GRACE_MS = 2000;

/** Resolves once `done()` holds (checked every 10 ms) or at `deadline` (epoch ms). */
async function waitUntil(done: () => boolean, deadline: number): Promise<void> {
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * A generic apiserver (k8s.io/apiserver GenericAPIServer): serves installed resources through the
 * generic REST store behind the handler chain, plus discovery, health, metrics and /version, and
 * delegates anything it does not serve.
 */
export class GenericAPIServer {
  readonly health: HealthRegistry;
  readonly metrics: ServerMetrics;
  /** The full handler chain (filters + routes). */
  readonly handler: Handler;
  /** The routes without the filters: what an outer server delegates to. */
  readonly routes: Handler;
  /** Per `<group>/<version>/<resource>`: the route and its backend's handler environment. */
  private readonly resources = new Map<string, { route: ResourceRoute; environment: HandlerEnvironment }>();
  private readonly virtualResources = new Map<string, Endpoint>();
  private readonly installed: InstalledResource[] = [];
  /** Per installed resource (`<group>/<resource>`): its storage and its open watches. */
  private readonly backends = new Map<string, { storage: Interface; environment: HandlerEnvironment; prefix: string }>();
  private readonly platformHandlers: PathHandler[];
  /** Discovery and OpenAPI served elsewhere (an aggregator's backends), merged into this server's. */
  private readonly aggregatedSources: AggregatedDiscoverySource[] = [];
  private readonly hookAbort = new AbortController();
  /** Requests being served (watches included). */
  private inFlight = 0;
  private server: Server | undefined;
  private secureServer: SecureServer | undefined;
  private shutdownStarted = false;
  private shuttingDown = false;
  private storagesClosed: Promise<void> | undefined;
  private loopback: LoopbackClientConfig | undefined;

  constructor(
    readonly options: CompletedOptions,
    readonly delegate?: GenericAPIServer,
  ) {
    const metrics = options.metrics ?? delegate?.metrics ?? new ServerMetrics();
    this.metrics = metrics;
    this.health =
      options.health ??
      delegate?.health ??
      new HealthRegistry({
        onResult: (name, type, healthy) => metrics.observeHealthCheck(name, type, healthy),
      });
    this.platformHandlers = [
      this.health.handler(),
      this.metrics.handler(),
      createVersionHandler(options.versionInfo),
      createDiscoveryHandler({
        resources: () => {
          const resources = [...this.installedResources(), ...this.aggregatedSources.flatMap((source) => source.resources())];
          return options.discoveryGroupPriority ? byGroupPriority(resources, options.discoveryGroupPriority) : resources;
        },
        passUnknown: true,
      }),
      createOpenAPIHandler({
        resources: () => this.installedResources(),
        schemaFor: (gvk) => {
          const schema = options.scheme.openAPISchema?.(gvk);
          return typeof schema === 'object' && schema !== null ? (schema as JSONSchema) : undefined;
        },
        version: options.versionInfo.gitVersion,
        extraV3Paths: () => Object.assign({}, ...this.aggregatedSources.map((source) => source.openAPIV3Paths?.() ?? {})),
        extraV2: () => this.aggregatedSources.flatMap((source) => source.openAPIV2?.() ?? []),
        ...(options.openAPIV3Documents ? { extraV3Documents: options.openAPIV3Documents } : {}),
      }),
    ];
    this.routes = (request, response) => this.route(request, response);
    this.handler = buildHandlerChain(
      [(next) => (request, response) => this.track(next, request, response), ...configuredFilters(options)],
      this.routes,
    );
  }

  /** Outermost: refuses requests during shutdown, counts in-flight requests and records metrics. */
  private track(next: Handler, request: IncomingMessage, response: ServerResponse): void | Promise<void> {
    if (this.shuttingDown) {
      const path = requestTarget(request).path;
      if (!shutdownExemptPaths.some((exempt) => path === exempt || path.startsWith(`${exempt}/`))) {
        closeConnectionAfter(request, response);
        writeStatus(
          response,
          StatusError.tooManyRequests('The apiserver is shutting down, please try again later.', 5),
        );
        return;
      }
    }
    requestContext(request, response);
    this.inFlight++;
    // Not an async function: the request's end is handled once, with no promise of its own when the
    // chain answered synchronously, and as a step of the filters' shared reaction when it did not.
    let work: void | Promise<void>;
    try {
      work = next(request, response);
    } catch (error) {
      if (!response.headersSent) writeStatus(response, error);
      this.finish(request, response);
      return;
    }
    if (!work) {
      this.finish(request, response);
      return;
    }
    return afterHandling(request, response, work, this.finishHandling);
  }

  /** The end of a request whose handling was asynchronous: a failure left unanswered is answered here. */
  private readonly finishHandling: CompletionStep = (request, response, outcome) => {
    if (outcome.failed) {
      outcome.failed = false;
      if (!response.headersSent) writeStatus(response, outcome.error);
    }
    this.finish(request, response);
  };

  /** The end of a tracked request: it leaves the in-flight count and its metrics are recorded. */
  private finish(request: IncomingMessage, response: ServerResponse): void {
    this.inFlight--;
    observeResourceRequest(this.metrics, request, response.statusCode);
  }

  private route(request: IncomingMessage, response: ServerResponse): void | Promise<void> {
    const target = requestTarget(request);
    const path = parseResourcePath(target.path, target.segments);
    // Health, metrics, version, discovery and OpenAPI never serve a resource path.
    if (!path) {
      for (const handler of this.platformHandlers) if (handler(request, response)) return answered(response);
    } else {
      const key = `${path.group}/${path.version}/${path.resource}`;
      const virtual = this.virtualResources.get(key);
      if (virtual && this.scopeMatches(virtual.definition, path)) {
        return answerFailures(
          request,
          response,
          handleVirtualRequest(request, response, virtual, path, this.options.protobuf, this.options.authorizer),
        );
      }
      const served = this.resources.get(key);
      if (served && this.servesSubresource(served.route.definition, path.subresource) && this.scopeMatches(served.route.definition, path)) {
        const { route, environment } = served;
        const scale = path.subresource === 'scale' ? route.definition.subresources?.scale : undefined;
        return answerFailures(
          request,
          response,
          scale
            ? handleScaleRequest(request, response, route, path, environment, scale)
            : handleResourceRequest(request, response, route, path, environment),
        );
      }
    }
    if (this.delegate) return this.delegate.routes(request, response);
    writeStatus(response, notFound());
  }

  /** What the REST handlers of one resource share: its watches and the server's options. */
  private environment(watches: WatchRegistry): HandlerEnvironment {
    return {
      watches,
      metrics: this.metrics,
      ...(this.options.now ? { now: this.options.now } : {}),
      ...(this.options.protobuf ? { protobuf: this.options.protobuf } : {}),
      ...(this.options.watchTimeoutSeconds ? { watchTimeoutSeconds: this.options.watchTimeoutSeconds } : {}),
      ...(this.options.authorizer ? { authorizer: this.options.authorizer } : {}),
    };
  }

  private servesSubresource(definition: ResourceDefinition, subresource: string): boolean {
    if (subresource === 'status') return Boolean(definition.subresources?.status);
    if (subresource === 'scale') return Boolean(definition.subresources?.scale);
    if (definition.subresources?.replaceOnly?.includes(subresource)) return true;
    return subresource === '';
  }

  private scopeMatches(definition: ResourceDefinition, path: { namespace: string; name: string }): boolean {
    if (!definition.namespaced) return path.namespace === '';
    // A namespaced object is addressed inside its namespace; lists and watches may span all namespaces.
    return path.namespace !== '' || path.name === '';
  }

  /**
   * Serves a resource at each of its versions through the generic REST store. Its storage comes from
   * the config's StorageFactory with a codec writing `storageVersion`.
   */
  installResource(definition: ResourceDefinition): GenericStore {
    const storageVersion = definition.storageVersion ?? definition.versions[0];
    if (!storageVersion)
      throw new Error(`resource ${definition.resource}.${definition.group} has no versions`);
    const groupResource: GroupResource = { group: definition.group, resource: definition.resource };
    for (const version of definition.versions) {
      if (this.resources.has(`${definition.group}/${version}/${definition.resource}`)) {
        throw new Error(
          `resource ${definition.resource}.${definition.group} is already installed at ${version}`,
        );
      }
    }
    const prefix = resourcePrefix(this.options.keyPrefix, definition);
    const codec = this.options.scheme.codecFor({
      group: definition.group,
      kind: definition.kind,
      encodingVersion: storageVersion,
    });
    const backendKey = `${definition.group}/${definition.resource}`;
    if (this.backends.has(backendKey)) {
      throw new Error(`resource ${definition.resource}.${definition.group} is already installed`);
    }
    const storage = this.options.storage({ groupResource, prefix, codec, definition });
    const environment = this.environment(new WatchRegistry());
    this.backends.set(backendKey, { storage, environment, prefix });
    const resourceName =
      definition.group === '' ? definition.resource : `${definition.resource}.${definition.group}`;
    const storeOptions = {
      definition,
      scheme: this.options.scheme,
      storage: instrumentStorage(storage, this.metrics, resourceName),
      prefix,
    };
    const store = new GenericStore(
      this.options.now ? { ...storeOptions, now: this.options.now } : storeOptions,
    );
    for (const version of definition.versions) {
      const route = { definition: definitionAt(definition, version), version, scheme: this.options.scheme, store };
      this.resources.set(`${definition.group}/${version}/${definition.resource}`, { route, environment });
    }
    this.installed.push({
      definition,
      storageVersionHash: storageVersionHash(definition.group, storageVersion, definition.kind),
    });
    return store;
  }

  /**
   * The storage (its watch cache, when it has one) and key prefix of an installed resource, for
   * controllers in this process that only read: its lists and watches skip HTTP, encoding and
   * authorization. Objects are at the storage version and shared with the cache: never change them.
   */
  resourceStorage(group: string, resource: string): { storage: Interface; prefix: string } | undefined {
    const backend = this.backends.get(`${group}/${resource}`);
    return backend ? { storage: backend.storage, prefix: backend.prefix } : undefined;
  }

  /**
   * Changes the storageVersionHash discovery publishes for a resource (storage-version voting: the hash
   * follows the selected version, not the version the resource was installed with).
   */
  setStorageVersionHash(group: string, resource: string, hash: string): void {
    const entry = this.installed.find((item) => item.definition.group === group && item.definition.resource === resource);
    if (!entry) throw new Error(`resource ${resource}.${group} is not installed`);
    entry.storageVersionHash = hash;
  }

  /**
   * Serves a virtual resource (`definition.virtual`): create-only, not persisted, listed in discovery with
   * verb `create` (e.g. SelfSubjectAccessReview for `kubectl auth can-i`).
   */
  installVirtualResource(definition: ResourceDefinition): void {
    if (!definition.virtual) throw new Error(`resource ${definition.resource}.${definition.group} is not virtual`);
    const served: ResourceDefinition = { ...definition, verbs: definition.verbs ?? ['create'] };
    for (const version of definition.versions) {
      this.virtualResources.set(`${definition.group}/${version}/${definition.resource}`, {
        definition: served,
        version,
        scheme: this.options.scheme,
      });
    }
    this.installed.push({ definition: served });
  }

  /**
   * Stops serving a resource (e.g. a deleted CRD): its routes and discovery entry go away, its open
   * watches end and its storage is closed. Stored objects are left in place.
   */
  async uninstallResource(group: string, resource: string): Promise<void> {
    const backend = this.backends.get(`${group}/${resource}`);
    if (!backend) return;
    this.backends.delete(`${group}/${resource}`);
    for (const [key, { route }] of this.resources) {
      if (route.definition.group === group && route.definition.resource === resource)
        this.resources.delete(key);
    }
    const index = this.installed.findIndex(
      (entry) => entry.definition.group === group && entry.definition.resource === resource,
    );
    if (index >= 0) this.installed.splice(index, 1);
    backend.environment.watches.closeAll();
    if (isCloser(backend.storage)) await backend.storage.close();
  }

  /** How many watch streams this server and its delegates have open (a delegate's are served through ours). */
  private openWatches(): number {
    let open = this.delegate?.openWatches() ?? 0;
    for (const backend of this.backends.values()) open += backend.environment.watches.size;
    return open;
  }

  /** Closes the storages of this server and its delegates, once (a watch cache ends its watches with a bookmark). */
  private closeStorages(): Promise<void> {
    this.storagesClosed ??= (async () => {
      await Promise.all([...this.backends.values()].map(({ storage }) => (isCloser(storage) ? storage.close() : undefined)));
      await this.delegate?.closeStorages();
    })();
    return this.storagesClosed;
  }

  /** Ends the watches still open here and in the delegates. */
  private closeWatches(): void {
    for (const backend of this.backends.values()) backend.environment.watches.closeAll();
    this.delegate?.closeWatches();
  }

  /** Installs several resources (e.g. every resource of one API group). */
  installAPIGroup(definitions: readonly ResourceDefinition[]): GenericStore[] {
    return definitions.map((definition) => this.installResource(definition));
  }

  /** This server's resources followed by its delegates'. */
  installedResources(): InstalledResource[] {
    return [...this.installed, ...(this.delegate?.installedResources() ?? [])];
  }

  /**
   * What each persisted resource of this server (and its delegates) encodes and decodes, for the
   * StorageVersion API (KEP-2339): the storage version, and the served versions as decodable.
   */
  storageVersionInfos(): StorageVersionInfo[] {
    return storageVersionInfosOf(this.installedResources());
  }

  /**
   * Merges resources served by other servers into this server's discovery (`/apis`, `/apis/<group>`, aggregated
   * discovery) and their OpenAPI v3 paths into `/openapi/v3` (kube-aggregator's merged discovery). They are not
   * installed here: requests for them must be routed elsewhere (e.g. by a proxy filter).
   */
  addAggregatedDiscoverySource(source: AggregatedDiscoverySource): void {
    this.aggregatedSources.push(source);
  }

  /** Registers a hook run once the server listens; `/readyz` waits for it (`poststarthook/<name>`). */
  addPostStartHook(name: string, hook: PostStartHook): void {
    this.health.addPostStartHook(name, hook);
  }

  /**
   * Serves a request this server makes of itself through its whole handler chain, in this process and
   * without a socket (see {@link serveInProcess}); it authenticates by its headers like any request.
   */
  serveInProcess(request: InProcessRequest): Promise<InProcessAnswer> {
    return serveInProcess(this.handler, request);
  }

  /** The loopback client config (set once the server listens). */
  get loopbackClient(): LoopbackClientConfig {
    if (!this.loopback) throw new Error('the server is not listening yet');
    return this.loopback;
  }

  /** Starts serving; resolves with the bound address once listening (post-start hooks run in the background). */
  async listen(options: ListenOptions = {}): Promise<{ url: string; port: number; server: Server }> {
    if (this.server) throw new Error('the server is already listening');
    const listener = (request: IncomingMessage, response: ServerResponse) => {
      void this.handler(request, response);
    };
    const tls = options.tls;
    const secure = tls
      ? createSecureAPIServer(
          {
            key: tls.key,
            cert: tls.cert,
            ...(tls.clientCA ? { clientCA: tls.clientCA } : {}),
            http2MaxStreamsPerConnection: this.options.http2MaxStreamsPerConnection,
          },
          listener,
        )
      : undefined;
    const server: Server = secure?.server ?? createHttpServer(listener);
    server.on('clientError', answerClientError);
    this.secureServer = secure;
    this.server = server;
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
    const url = `${tls ? 'https' : 'http'}://${urlHost}:${port}`;
    this.loopback = {
      url,
      bearerToken: this.options.loopbackToken,
      ...(tls ? { caData: tls.cert.toString() } : {}),
    };
    this.health.runPostStartHooks({ signal: this.hookAbort.signal }).catch((error: unknown) => {
      process.emitWarning(error instanceof Error ? error.message : String(error));
    });
    return { url, port, server };
  }

  /**
   * Graceful shutdown: readyz fails (and requests are still served for `shutdownDelayMs`), then new
   * requests get 429 with Retry-After and the other in-flight requests drain while watches keep
   * streaming. Then the storages close: a watch cache ends each of its watches with a final BOOKMARK
   * at its current revision (KEP-1904), and those streams end cleanly by themselves; watches served by
   * the storage directly are ended after that, then the listener closes. Every wait is bounded by
   * `shutdownTimeoutMs`.
   */
  async shutdown(): Promise<void> {
    if (this.shutdownStarted) return;
    this.shutdownStarted = true;
    this.health.setShuttingDown();
    // --shutdown-delay-duration: keep serving while load balancers notice readyz failing.
    if (this.options.shutdownDelayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, this.options.shutdownDelayMs));
    this.shuttingDown = true;
    // HTTP/2 clients learn now that they must open new connections elsewhere; open watches keep streaming.
    this.secureServer?.goAway();
    this.hookAbort.abort();
    const deadline = Date.now() + this.options.shutdownTimeoutMs;
    await waitUntil(() => this.inFlight <= this.openWatches(), deadline);
    await this.closeStorages();
    await waitUntil(() => this.openWatches() === 0, Math.min(deadline, Date.now() + WATCH_END_GRACE_MS));
    this.closeWatches();
    await waitUntil(() => this.inFlight === 0, deadline);
    const server = this.server;
    if (this.secureServer) await this.secureServer.close();
    else if (server instanceof HttpServer) {
      // Plain HTTP/1.1 (no TLS).
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setImmediate(() => server.closeAllConnections());
      });
    }
    await this.delegate?.shutdown();
  }
}
