import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { knownFeatureGates, parseFeatureGates } from './feature-gates.js';
import { defaultServiceNodePortRange, parseNodePortRange, type NodePortRange } from './node-port-allocator.js';
import { defaultServiceClusterIPRange, parseServiceIPRange, type ServiceIPRange } from './service-ip-range.js';

/** kube-apiserver-lite's command-line options. */
export interface ServerOptions {
  storage: 'sqlite' | 'memory' | 'etcd';
  dataDir: string;
  /** The SQLite file is this process's alone (no other process may open it while it runs). */
  /**
   * How the SQLite file is used: `writer-thread` (commits on a worker thread, reads on the event loop; the
   * file may be shared), `exclusive` (one connection that keeps the file to itself) or `shared` (one
   * connection, the file may be shared).
   */
  sqliteMode: 'writer-thread' | 'exclusive' | 'shared';
  etcdServers: string[];
  etcdPrefix: string;
  etcdCompactionIntervalMs: number;
  bindAddress: string;
  securePort: number;
  tokenAuthFile?: string;
  clientCAFile?: string;
  authorizationModes: Array<'AlwaysAllow' | 'RBAC'>;
  anonymousAuth: boolean;
  watchCache: boolean;
  hostnameOverride: string;
  /** `group/resource` -> `group/version` (or `v1` for core). */
  storageVersions: Map<string, string>;
  storageVersionMode: 'publish' | 'vote';
  identityLeaseDurationSeconds: number;
  identityLeaseRenewIntervalSeconds: number;
  /** Feature gate StorageVersionAPI: the StorageVersion API and its write barrier. */
  storageVersionAPI: boolean;
  /** Feature gate APIServerIdentity: this server's identity lease (and the lease garbage collector). */
  apiServerIdentity: boolean;
  /** Progress-notification interval of the embedded stores (etcd's is a server flag). */
  progressNotifyIntervalMs: number;
  /** Load the watch cache's event history from storage on start (KEP-1904 beyond upstream). */
  watchCacheHistory: boolean;
  /** Feature gate EfficientWatchResumption: watch storage with progress notifications, which advance idle caches (KEP-1904). */
  watchCacheProgressNotify: boolean;
  maxRequestsInFlight: number;
  maxMutatingRequestsInFlight: number;
  requestTimeoutSeconds: number;
  corsAllowedOrigins: string[];
  /** `--service-cluster-ip-range`: Services' cluster IPs come from it (the first is the `kubernetes` Service's). */
  serviceClusterIPRange: ServiceIPRange;
  /** `--service-node-port-range`: NodePort and LoadBalancer Services' node ports come from it. */
  serviceNodePortRange: NodePortRange;
  shutdownDelaySeconds: number;
  /** `--http2-max-streams-per-connection`; 0: Go's default (250). */
  http2MaxStreamsPerConnection: number;
  kubeconfigPath?: string;
  /** `--audit-policy-file`: auditing is on when it and `auditLog` are both given (as upstream). */
  auditPolicyFile?: string;
  /** `--audit-log-path` (`-`: stdout) and its rotation. */
  auditLog?: { path: string; maxSizeMB: number; maxBackups: number; maxAgeDays: number };
  /** `--encryption-provider-config`: an EncryptionConfiguration file (encryption at rest). */
  encryptionProviderConfig?: string;
  /** Re-read the encryption configuration when the file changes. */
  encryptionProviderConfigAutomaticReload: boolean;
  /** Run the storage version migrator (migration controller and trigger), leader-elected. */
  storageVersionMigrator: boolean;
  /** `--enable-garbage-collector` (kube-controller-manager's flag): run the garbage collector in process (default true). */
  enableGarbageCollector?: boolean;
  /** `--storage-initialization-timeout`: how long readyz waits for the watch caches (default 1m). */
  storageInitializationTimeoutMs?: number;
  /** `--proxy-client-cert-file`/`--proxy-client-key-file`: the aggregator's client certificate (default: generated front-proxy-client). */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
  /** `--requestheader-client-ca-file`: the CA of the proxy client certificate, published to aggregated servers. */
  requestheaderClientCAFile?: string;
  /** `--requestheader-allowed-names`. */
  requestheaderAllowedNames: string[];
  /** How often the availability of remote APIServices is checked again. */
  apiServiceAvailabilityIntervalMs: number;
  /** Serve the storage-version console at /console/ (behind the same authentication and authorization). */
  console: boolean;
  /** `--gc-heap-growth-percent`: how far the V8 heap may grow past live data before a full collection (0: V8 decides). */
  gcHeapGrowthPercent: number;
  /** `--service-account-issuer` (repeatable): the first signs tokens, all are accepted; default {@link DEFAULT_SERVICE_ACCOUNT_ISSUER}. */
  serviceAccountIssuers?: string[];
  /** `--service-account-signing-key-file`: the PEM RSA private key tokens are signed with (default: generated in the data dir). */
  serviceAccountSigningKeyFile?: string;
  /** `--service-account-key-file` (repeatable): more PEM keys or certificates that verify tokens. */
  serviceAccountKeyFiles?: string[];
  /** `--api-audiences`: a token must be meant for one of these; default the first issuer. */
  apiAudiences?: string[];
  /** `--service-account-max-token-expiration` in seconds (0: no cap). */
  serviceAccountMaxTokenExpirationSeconds?: number;
}

/** Upstream's usual `--service-account-issuer`, the default here. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  default?: string;
  multiple?: boolean;
}

/** Every flag, in `--help` order. */
export const flagSpecs: Record<string, FlagSpec> = {
  storage: { type: 'string', default: 'sqlite', description: 'Storage backend: sqlite (embedded, durable), memory, or etcd.' },
  'data-dir': { type: 'string', default: './.kapi', description: 'Directory for the SQLite database, certificates and the admin kubeconfig.' },
  'sqlite-mode': { type: 'string', default: 'writer-thread', description: 'How the SQLite file is used: writer-thread (commits beside the event loop; other processes may share the file), exclusive (one connection, keeps the file to itself), or shared (one connection).' },
  'etcd-servers': { type: 'string', default: 'http://127.0.0.1:2379', description: 'Comma-separated etcd endpoints (with --storage=etcd).' },
  'etcd-prefix': { type: 'string', default: '/registry', description: 'Key prefix of every object in storage.' },
  'etcd-compaction-interval': { type: 'string', default: '5m', description: 'Interval of storage compaction (0 disables), e.g. 5m, 30s.' },
  'bind-address': { type: 'string', default: '127.0.0.1', description: 'Address to serve HTTPS on.' },
  'secure-port': { type: 'string', default: '6443', description: 'Port to serve HTTPS on (0 picks a free one).' },
  'token-auth-file': { type: 'string', description: 'CSV of bearer tokens: token,user,uid,"group1,group2".' },
  'client-ca-file': { type: 'string', description: 'CA bundle that signs client certificates (CN user, O groups). Default: the generated CA.' },
  'authorization-mode': { type: 'string', default: 'RBAC', description: 'Comma-separated authorizers: AlwaysAllow, RBAC.' },
  'anonymous-auth': { type: 'string', default: 'true', description: 'Serve requests without credentials as system:anonymous (RBAC then decides); false: 401.' },
  'watch-cache': { type: 'string', default: 'true', description: 'Serve reads and watches from the watch cache.' },
  'watch-cache-history': { type: 'string', default: 'true', description: 'Load the event history since the last compaction into the watch cache on start.' },
  'watch-cache-progress-notify': { type: 'string', description: 'Alias of --feature-gates=EfficientWatchResumption=...: watch storage with progress notifications so idle caches (and bookmarks) advance (KEP-1904).' },
  'hostname-override': { type: 'string', description: 'Hostname for the apiserver identity (lets several replicas share a machine).' },
  'storage-version': { type: 'string', multiple: true, description: 'Storage version of a resource, e.g. autoscaling/horizontalpodautoscalers=autoscaling/v1 (repeatable).' },
  'storage-version-mode': { type: 'string', default: 'publish', description: 'publish (KEP-2339 StorageVersion API) or vote (servers agree on a selected version).' },
  'storage-version-api': { type: 'string', description: 'Alias of --feature-gates=APIServerIdentity=...,StorageVersionAPI=...: run identity leases and the StorageVersion API.' },
  'feature-gates': { type: 'string', multiple: true, description: `Comma-separated Name=bool pairs: APIServerIdentity (default ${knownFeatureGates.APIServerIdentity}), StorageVersionAPI (default ${knownFeatureGates.StorageVersionAPI}; needs APIServerIdentity), EfficientWatchResumption (default ${knownFeatureGates.EfficientWatchResumption}). Wins over the alias flags.` },
  'identity-lease-duration-seconds': { type: 'string', default: '3600', description: 'Duration of the apiserver identity lease.' },
  'identity-lease-renew-interval-seconds': { type: 'string', default: '10', description: 'Renew interval of the apiserver identity lease.' },
  'progress-notify-interval': { type: 'string', default: '5s', description: 'Progress-notification interval of the embedded stores (sqlite, memory).' },
  'max-requests-inflight': { type: 'string', default: '400', description: 'Maximum non-mutating requests in flight.' },
  'max-mutating-requests-inflight': { type: 'string', default: '200', description: 'Maximum mutating requests in flight.' },
  'request-timeout': { type: 'string', default: '60s', description: 'Timeout of non-long-running requests.' },
  'cors-allowed-origins': { type: 'string', description: 'Comma-separated regular expressions of allowed CORS origins.' },
  'service-cluster-ip-range': { type: 'string', default: defaultServiceClusterIPRange, description: "A CIDR notation IP range from which to assign service cluster IPs (IPv4 only here). The first address is the 'kubernetes' Service's." },
  'service-node-port-range': { type: 'string', default: defaultServiceNodePortRange, description: 'A port range to reserve for services with NodePort visibility. Inclusive at both ends of the range.' },
  'shutdown-delay-duration': { type: 'string', default: '0s', description: 'Time readyz reports not-ready before shutdown proceeds.' },
  'http2-max-streams-per-connection': { type: 'string', default: '0', description: "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default." },
  'audit-policy-file': { type: 'string', description: 'Path to the audit policy (audit.k8s.io/v1 Policy, YAML or JSON).' },
  'audit-log-path': { type: 'string', description: 'Write audit events as JSON lines to this file; - means stdout.' },
  'audit-log-maxsize': { type: 'string', default: '0', description: 'Megabytes an audit log file may reach before it is rotated (0: never).' },
  'audit-log-maxbackup': { type: 'string', default: '0', description: 'Rotated audit log files to keep (0: all).' },
  'audit-log-maxage': { type: 'string', default: '0', description: 'Days to keep rotated audit log files (0: forever).' },
  'encryption-provider-config': { type: 'string', description: 'The file containing configuration for encryption providers to be used for storing secrets in etcd.' },
  'encryption-provider-config-automatic-reload': { type: 'string', default: 'false', description: 'Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change.' },
  'enable-garbage-collector': { type: 'string', default: 'true', description: 'Enables the generic garbage collector (dependents of deleted owners, foreground and orphan deletion), run in process by the holder of the kube-system/kube-controller-manager lease.' },
  'storage-version-migrator': { type: 'string', default: 'true', description: 'Run the storage version migrator (StorageVersionMigrations, and new ones when a StorageVersion changes), leader-elected among replicas.' },
  'storage-initialization-timeout': { type: 'string', default: '1m0s', description: 'Maximum amount of time to wait for storage initialization before declaring apiserver ready.' },
  'proxy-client-cert-file': { type: 'string', description: 'Client certificate the aggregator presents to aggregated servers (default: <data-dir>/front-proxy-client.crt, generated).' },
  'proxy-client-key-file': { type: 'string', description: 'Private key of --proxy-client-cert-file.' },
  'requestheader-client-ca-file': { type: 'string', description: 'CA of the proxy client certificate, published in kube-system/extension-apiserver-authentication (default: <data-dir>/front-proxy-ca.crt, generated).' },
  'requestheader-allowed-names': { type: 'string', default: 'front-proxy-client', description: 'Comma-separated common names aggregated servers accept identity headers from.' },
  'apiservice-availability-interval': { type: 'string', default: '30s', description: 'How often the availability of remote APIServices is checked again (they are also checked on every change).' },
  console: { type: 'string', default: 'true', description: 'Serve the storage-version console at /console/ (servers, StorageVersions, votes, migrations, watch caches), behind the same authentication and authorization as the API.' },
  'gc-heap-growth-percent': { type: 'string', default: '100', description: "How far the heap may grow past the data live after a full garbage collection before the next one, in percent, as Go's GOGC (100: it may double). 0 leaves it to V8, which grows the heap of a server with steady writes by as little as 10%, so that full collections (pauses of 10-70 ms) come every few seconds." },
  'service-account-issuer': { type: 'string', multiple: true, default: DEFAULT_SERVICE_ACCOUNT_ISSUER, description: 'Identifier of the service account token issuer, asserted in the "iss" claim of issued tokens. Repeatable: the first is used to generate tokens and all are accepted.' },
  'service-account-signing-key-file': { type: 'string', description: 'Path to the file that contains the current private key (PEM, RSA) of the service account token issuer (default: <data-dir>/service-account.key, generated once).' },
  'service-account-key-file': { type: 'string', multiple: true, description: 'File containing PEM-encoded RSA private or public keys or certificates, used to verify ServiceAccount tokens besides the signing key. Repeatable.' },
  'api-audiences': { type: 'string', description: 'Comma-separated identifiers of the API: service account tokens must be bound to at least one of them. Default: the first --service-account-issuer.' },
  'service-account-max-token-expiration': { type: 'string', default: '0s', description: 'The maximum validity duration of a token created by the service account token issuer (between 1h and 2^32 s; 0: no maximum). Longer TokenRequests get a token of this duration.' },
  kubeconfig: { type: 'string', description: 'Where to write the admin kubeconfig (default <data-dir>/admin.kubeconfig).' },
  help: { type: 'boolean', description: 'Print this help.' },
};

/** Parses Go-style durations (`5m`, `1.5s`, `300ms`, `1h`) into milliseconds. */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let rest = text;
  const part = /^(\d+(?:\.\d+)?)(ms|s|m|h)/;
  while (rest) {
    const match = part.exec(rest);
    if (!match) throw new Error(`invalid duration ${JSON.stringify(text)}`);
    total += Number(match[1]) * (units[match[2] as string] ?? 0);
    rest = rest.slice(match[0].length);
  }
  return total;
}

/** The `--help` text. */
export function helpText(): string {
  const lines = ['Usage: kube-apiserver-lite [flags]', '', 'A Kubernetes-compatible API server built on kapi.', '', 'Flags:'];
  for (const [name, spec] of Object.entries(flagSpecs)) {
    const def = spec.default !== undefined ? ` (default ${JSON.stringify(spec.default)})` : '';
    lines.push(`  --${name}${spec.type === 'string' ? ' string' : ''}`, `        ${spec.description}${def}`);
  }
  return lines.join('\n');
}

const truthy = (value: string) => !['false', '0', 'no', 'off'].includes(value.toLowerCase());

/** Parses argv into options; throws on unknown flags or bad values. */
export function parseOptions(argv: string[]): ServerOptions & { help: boolean } {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(
      Object.entries(flagSpecs).map(([name, spec]) => [name, { type: spec.type, ...(spec.multiple ? { multiple: true } : {}) }]),
    ),
    strict: true,
    allowPositionals: false,
  });
  const get = (name: string): string => {
    const value = values[name];
    if (typeof value === 'string') return value;
    return flagSpecs[name]?.default ?? '';
  };
  const storage = get('storage');
  if (storage !== 'sqlite' && storage !== 'memory' && storage !== 'etcd') throw new Error(`--storage must be sqlite, memory or etcd, not ${JSON.stringify(storage)}`);
  const sqliteMode = get('sqlite-mode');
  if (sqliteMode !== 'writer-thread' && sqliteMode !== 'exclusive' && sqliteMode !== 'shared')
    throw new Error(`--sqlite-mode must be writer-thread, exclusive or shared, not ${JSON.stringify(sqliteMode)}`);
  const modes = get('authorization-mode').split(',').map((mode) => mode.trim()).filter(Boolean);
  for (const mode of modes) if (mode !== 'AlwaysAllow' && mode !== 'RBAC') throw new Error(`unsupported --authorization-mode ${mode}`);
  const storageVersionMode = get('storage-version-mode');
  if (storageVersionMode !== 'publish' && storageVersionMode !== 'vote') throw new Error('--storage-version-mode must be publish or vote');
  const storageVersions = new Map<string, string>();
  for (const entry of (values['storage-version'] as string[] | undefined) ?? []) {
    const [resource, version] = entry.split('=');
    if (!resource || !version || !resource.includes('/')) {
      throw new Error(`--storage-version takes group/resource=group/version (core: /resource=v1), got ${JSON.stringify(entry)}`);
    }
    storageVersions.set(resource.replace(/^core\//, '/'), version);
  }
  const gates = parseFeatureGates((values['feature-gates'] as string[] | undefined) ?? [], {
    ...knownFeatureGates,
    ...(typeof values['storage-version-api'] === 'string'
      ? { APIServerIdentity: truthy(values['storage-version-api']), StorageVersionAPI: truthy(values['storage-version-api']) }
      : {}),
    ...(typeof values['watch-cache-progress-notify'] === 'string'
      ? { EfficientWatchResumption: truthy(values['watch-cache-progress-notify']) }
      : {}),
  });
  const number = (name: string) => {
    const value = Number(get(name));
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} must be a non-negative number`);
    return value;
  };
  const options: ServerOptions & { help: boolean } = {
    help: values.help === true,
    storage,
    dataDir: get('data-dir'),
    sqliteMode,
    etcdServers: get('etcd-servers').split(',').map((s) => s.trim()).filter(Boolean),
    etcdPrefix: get('etcd-prefix').replace(/\/$/, ''),
    etcdCompactionIntervalMs: parseDuration(get('etcd-compaction-interval')),
    bindAddress: get('bind-address'),
    securePort: number('secure-port'),
    authorizationModes: modes as ServerOptions['authorizationModes'],
    anonymousAuth: truthy(get('anonymous-auth')),
    watchCache: truthy(get('watch-cache')),
    watchCacheHistory: truthy(get('watch-cache-history')),
    watchCacheProgressNotify: gates.EfficientWatchResumption,
    hostnameOverride: get('hostname-override') || hostname(),
    storageVersions,
    storageVersionMode,
    storageVersionAPI: gates.StorageVersionAPI,
    apiServerIdentity: gates.APIServerIdentity,
    identityLeaseDurationSeconds: number('identity-lease-duration-seconds'),
    identityLeaseRenewIntervalSeconds: number('identity-lease-renew-interval-seconds'),
    progressNotifyIntervalMs: parseDuration(get('progress-notify-interval')),
    maxRequestsInFlight: number('max-requests-inflight'),
    maxMutatingRequestsInFlight: number('max-mutating-requests-inflight'),
    requestTimeoutSeconds: parseDuration(get('request-timeout')) / 1000,
    corsAllowedOrigins: get('cors-allowed-origins').split(',').map((s) => s.trim()).filter(Boolean),
    serviceClusterIPRange: parseServiceIPRange(get('service-cluster-ip-range')),
    serviceNodePortRange: parseNodePortRange(get('service-node-port-range')),
    shutdownDelaySeconds: parseDuration(get('shutdown-delay-duration')) / 1000,
    http2MaxStreamsPerConnection: number('http2-max-streams-per-connection'),
    encryptionProviderConfigAutomaticReload: truthy(get('encryption-provider-config-automatic-reload')),
    storageVersionMigrator: truthy(get('storage-version-migrator')),
    enableGarbageCollector: truthy(get('enable-garbage-collector')),
    storageInitializationTimeoutMs: parseDuration(get('storage-initialization-timeout')),
    requestheaderAllowedNames: get('requestheader-allowed-names').split(',').map((s) => s.trim()).filter(Boolean),
    apiServiceAvailabilityIntervalMs: parseDuration(get('apiservice-availability-interval')),
    console: truthy(get('console')),
    gcHeapGrowthPercent: number('gc-heap-growth-percent'),
  };
  if (!Number.isInteger(options.gcHeapGrowthPercent)) throw new Error('--gc-heap-growth-percent must be a whole number');
  if (options.identityLeaseDurationSeconds <= 0) throw new Error('--identity-lease-duration-seconds must be greater than 0');
  const tokenAuthFile = get('token-auth-file');
  if (tokenAuthFile) options.tokenAuthFile = tokenAuthFile;
  const clientCAFile = get('client-ca-file');
  if (clientCAFile) options.clientCAFile = clientCAFile;
  const kubeconfig = get('kubeconfig');
  if (kubeconfig) options.kubeconfigPath = kubeconfig;
  const auditPolicyFile = get('audit-policy-file');
  if (auditPolicyFile) options.auditPolicyFile = auditPolicyFile;
  const auditLogPath = get('audit-log-path');
  if (auditLogPath) {
    options.auditLog = {
      path: auditLogPath,
      maxSizeMB: number('audit-log-maxsize'),
      maxBackups: number('audit-log-maxbackup'),
      maxAgeDays: number('audit-log-maxage'),
    };
  }
  const encryptionProviderConfig = get('encryption-provider-config');
  if (encryptionProviderConfig) options.encryptionProviderConfig = encryptionProviderConfig;
  const proxyClientCertFile = get('proxy-client-cert-file');
  if (proxyClientCertFile) options.proxyClientCertFile = proxyClientCertFile;
  const proxyClientKeyFile = get('proxy-client-key-file');
  if (proxyClientKeyFile) options.proxyClientKeyFile = proxyClientKeyFile;
  Object.assign(options, serviceAccountOptions(values as Record<string, unknown>, get));
  const requestheaderClientCAFile = get('requestheader-client-ca-file');
  if (requestheaderClientCAFile) options.requestheaderClientCAFile = requestheaderClientCAFile;
  return options;
}

/** The service account token flags (`--service-account-*`, `--api-audiences`), validated as upstream. */
function serviceAccountOptions(values: Record<string, unknown>, get: (name: string) => string): Partial<ServerOptions> {
  const issuers = ((values['service-account-issuer'] as string[] | undefined) ?? [DEFAULT_SERVICE_ACCOUNT_ISSUER]).filter(Boolean);
  if (issuers.length === 0) throw new Error('--service-account-issuer must not be empty');
  const audiences = get('api-audiences').split(',').map((s) => s.trim()).filter(Boolean);
  const maxExpirationSeconds = Math.floor(parseDuration(get('service-account-max-token-expiration')) / 1000);
  if (maxExpirationSeconds !== 0 && (maxExpirationSeconds < 3600 || maxExpirationSeconds > 2 ** 32)) {
    throw new Error('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
  const signingKeyFile = get('service-account-signing-key-file');
  return {
    serviceAccountIssuers: issuers,
    apiAudiences: audiences.length ? audiences : [issuers[0] as string],
    serviceAccountKeyFiles: (values['service-account-key-file'] as string[] | undefined) ?? [],
    serviceAccountMaxTokenExpirationSeconds: maxExpirationSeconds,
    ...(signingKeyFile ? { serviceAccountSigningKeyFile: signingKeyFile } : {}),
  };
}
