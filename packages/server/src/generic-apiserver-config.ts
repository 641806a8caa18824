import {
  generateLoopbackToken,
  type AuditOptions,
  type Authenticator,
  type Authorizer,
  type Filter,
} from '@kapi/filters';
import { HealthRegistry } from './health/index.js';
import { ServerMetrics } from './metrics/index.js';
import type { ProtobufBodyDecoder } from './handlers/request-body.js';
import type { JSONSchema } from './openapi/index.js';
import type { SchemeLike } from './scheme-like.js';
import type { StorageFactory } from './storage-factory.js';
import { versionInfo, type VersionInfo } from './version.js';
import { GenericAPIServer } from './generic-apiserver.js';

/** Options of a {@link GenericAPIServerConfig}. */
export interface GenericAPIServerOptions {
  scheme: SchemeLike;
  /** Gives the storage of each installed resource. */
  storage: StorageFactory;
  /** Storage key prefix (`--etcd-prefix`); default `/registry`. */
  keyPrefix?: string;
  /**
   * Authenticators tried in order (`withAuthentication`); the loopback authenticator for
   * `loopbackToken` is added first. Without any, authentication is off and requests stay anonymous.
   */
  authenticators?: Authenticator[];
  /** Let requests without credentials in as `system:anonymous`; default false. */
  anonymous?: boolean;
  /**
   * The server's one authorizer, passed once: the authorization and impersonation filters and every
   * decision inside a request (apply that creates, strategy hooks through `RequestScope.authorizer`,
   * access reviews) ask this same object. None: authorization is off (everything allowed).
   */
  authorizer?: Authorizer;
  /** Filters after authorization, outermost first (e.g. the storage-version write barrier). */
  innermostFilters?: Filter[];
  /** Replaces the panic-recovery/request-info/timeout/CORS filters, outermost first. */
  baseFilters?: Filter[];
  /** Default 400; 0 disables. */
  maxRequestsInFlight?: number;
  /** Default 200; 0 disables. */
  maxMutatingRequestsInFlight?: number;
  /** Default 60000. */
  requestTimeoutMs?: number;
  /** Regular expressions of allowed CORS origins; default none. */
  corsAllowedOrigins?: string[];
  /** `/version` document overrides. */
  version?: Partial<VersionInfo>;
  /** The bearer token of the loopback client; default a random one. */
  loopbackToken?: string;
  /** How long shutdown waits for in-flight requests (default 60000 ms). */
  shutdownTimeoutMs?: number;
  /** How long shutdown keeps serving after readyz starts failing (`--shutdown-delay-duration`); default 0. */
  shutdownDelayMs?: number;
  /** Default watch timeout in seconds when the client sends none (default `1800*(1+rand)`). */
  watchTimeoutSeconds?: () => number;
  /** Request and storage metrics; default a new registry (shared with the delegate when there is one). */
  metrics?: ServerMetrics;
  /** Health checks and post-start hooks; default a new registry (the delegate's when there is one). */
  health?: HealthRegistry;
  /**
   * Decoder of `application/vnd.kubernetes.protobuf` request bodies (apimachinery's `ProtobufRegistry`
   * with the built-in kinds); without it such bodies get 415. Responses are always JSON/YAML.
   */
  protobuf?: ProtobufBodyDecoder;
  /** Audit policy and sink (`withAudit`, after authentication); none: no auditing. */
  audit?: AuditOptions;
  /** Where every 5xx is logged with its cause (`withServerErrorLog`); default stderr. */
  errorLog?: (line: string) => void;
  /** Injectable clock for object timestamps. */
  now?: () => Date;
  /**
   * `--http2-max-streams-per-connection`: the limit that the server gives to clients for the maximum
   * number of streams in an HTTP/2 connection; 0 (the default) means Go's default, 250. Aggregated
   * servers are recommended 1000 (the aggregator multiplexes many watches on one connection).
   */
  http2MaxStreamsPerConnection?: number;
  /**
   * The priority of an API group in discovery (`/apis` and aggregated discovery): groups are listed
   * highest first, ties by name, as upstream's aggregator lists them by their APIServices'
   * `groupPriorityMinimum`. Without it, groups are listed in the order they were installed.
   */
  discoveryGroupPriority?: (group: string) => number;
  /**
   * OpenAPI 3 documents of root endpoints the server serves outside its resources, keyed by their
   * `/openapi/v3` index path (e.g. `serviceAccountIssuerDiscoveryDocuments()` for a server serving
   * `/.well-known/openid-configuration` and `/openid/v1/jwks`): listed in the index and served under it.
   */
  openAPIV3Documents?: () => Record<string, JSONSchema>;
}

/** A config with every default filled in. */
export interface CompletedOptions extends GenericAPIServerOptions {
  keyPrefix: string;
  maxRequestsInFlight: number;
  maxMutatingRequestsInFlight: number;
  requestTimeoutMs: number;
  corsAllowedOrigins: string[];
  loopbackToken: string;
  shutdownTimeoutMs: number;
  shutdownDelayMs: number;
  versionInfo: VersionInfo;
  http2MaxStreamsPerConnection: number;
}

/** The completed config; `new()` builds the server. */
export class CompletedConfig {
  constructor(readonly options: CompletedOptions) {}

  /** Builds the server; requests none of its routes match go to `delegate`. */
  new(delegate?: GenericAPIServer): GenericAPIServer {
    return new GenericAPIServer(this.options, delegate);
  }
}

/** `Config -> complete() -> new(delegate?)`, as k8s.io/apiserver. */
export class GenericAPIServerConfig {
  constructor(readonly options: GenericAPIServerOptions) {}

  /** Fills defaults. */
  complete(): CompletedConfig {
    const options = this.options;
    return new CompletedConfig({
      ...options,
      keyPrefix: options.keyPrefix ?? '/registry',
      maxRequestsInFlight: options.maxRequestsInFlight ?? 400,
      maxMutatingRequestsInFlight: options.maxMutatingRequestsInFlight ?? 200,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
      corsAllowedOrigins: options.corsAllowedOrigins ?? [],
      loopbackToken: options.loopbackToken ?? generateLoopbackToken(),
      shutdownTimeoutMs: options.shutdownTimeoutMs ?? 60_000,
      shutdownDelayMs: options.shutdownDelayMs ?? 0,
      versionInfo: versionInfo(options.version),
      http2MaxStreamsPerConnection: options.http2MaxStreamsPerConnection ?? 0,
    });
  }
}
