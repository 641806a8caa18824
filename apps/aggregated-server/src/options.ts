import { parseArgs } from 'node:util';
import { wardleVersions, type WardleVersion } from './wardle-scheme.js';

/** The aggregated server's command-line options (sample-apiserver's, plus kapi's storage flags). */
export interface AggregatedServerOptions {
  /** The main apiserver's kubeconfig: delegated authn/authz, its authentication ConfigMap, self-registration. */
  kubeconfig: string;
  bindAddress: string;
  securePort: number;
  dataDir: string;
  /** `sqlite` (default, `<data-dir>/wardle.db`) or `etcd` (`--etcd-servers`). */
  storage: 'sqlite' | 'etcd';
  etcdServers: string[];
  etcdPrefix: string;
  /** Version objects are written in. */
  storageVersion: WardleVersion;
  watchCache: boolean;
  /** Request-header CA file (overrides the ConfigMap's `requestheader-client-ca-file`). */
  requestHeaderClientCAFile?: string;
  requestHeaderAllowedNames?: string[];
  requestHeaderUsernameHeaders?: string[];
  requestHeaderUIDHeaders?: string[];
  requestHeaderGroupHeaders?: string[];
  requestHeaderExtraHeadersPrefix?: string[];
  /** Client CA for plain client certificates (overrides the ConfigMap's `client-ca-file`). */
  clientCAFile?: string;
  /** Publish an identity Lease and StorageVersions for flunders/fischers on the main server (KEP-2339). */
  publishStorageVersions: boolean;
  /** Register Namespace, Service, EndpointSlice, APIServices and RBAC on the main server. */
  register: boolean;
  /** The Service's namespace and name (the APIServices point at it; the serving certificate covers it). */
  serviceNamespace: string;
  serviceName: string;
  /** `--gc-heap-growth-percent`, as kube-apiserver-lite's (0: V8's own heuristics). */
  gcHeapGrowthPercent: number;
  help: boolean;
}

const flags = {
  kubeconfig: { type: 'string', description: "The main apiserver's kubeconfig (required)." },
  'bind-address': { type: 'string', default: '127.0.0.1', description: 'Address to serve HTTPS on; also the EndpointSlice address.' },
  'secure-port': { type: 'string', default: '8443', description: 'Port to serve HTTPS on (0 picks a free one).' },
  'data-dir': { type: 'string', default: './.wardle', description: 'Directory for the SQLite database and the certificates.' },
  storage: { type: 'string', default: 'sqlite', description: 'Storage backend: sqlite (in --data-dir) or etcd (--etcd-servers).' },
  'etcd-servers': { type: 'string', description: 'Comma-separated etcd endpoints; implies --storage=etcd.' },
  'etcd-prefix': { type: 'string', default: '/registry/wardle.example.com', description: 'Key prefix of every object in storage.' },
  'storage-version': { type: 'string', default: 'v1beta1', description: 'Version objects are written in: v1beta1 or v1alpha1.' },
  'watch-cache': { type: 'string', default: 'true', description: 'Serve lists and watches from a watch cache.' },
  'requestheader-client-ca-file': { type: 'string', description: 'CA of front-proxy client certificates (default: the ConfigMap kube-system/extension-apiserver-authentication).' },
  'requestheader-allowed-names': { type: 'string', description: 'Comma-separated CNs allowed to send identity headers (empty: any).' },
  'requestheader-username-headers': { type: 'string', description: 'Comma-separated user name headers (default X-Remote-User).' },
  'requestheader-uid-headers': { type: 'string', description: 'Comma-separated user UID headers, e.g. X-Remote-Uid (default: none).' },
  'requestheader-group-headers': { type: 'string', description: 'Comma-separated group headers (default X-Remote-Group).' },
  'requestheader-extra-headers-prefix': { type: 'string', description: 'Comma-separated extra header prefixes (default X-Remote-Extra-).' },
  'client-ca-file': { type: 'string', description: 'CA of client certificates (CN user, O groups).' },
  'publish-storage-versions': { type: 'string', default: 'true', description: 'Publish an identity Lease and StorageVersions of flunders and fischers on the main server; writes wait for them.' },
  register: { type: 'string', default: 'true', description: 'Register the Service, EndpointSlice, APIServices and RBAC on the main server.' },
  'service-namespace': { type: 'string', default: 'wardle-system', description: 'Namespace of the registered Service.' },
  'service-name': { type: 'string', default: 'api', description: 'Name of the registered Service.' },
  'gc-heap-growth-percent': { type: 'string', default: '100', description: "How far the heap may grow past the data live after a full garbage collection, in percent, as Go's GOGC. 0: V8's own heuristics." },
  help: { type: 'boolean', description: 'Print this help.' },
} as const;

/** `--help` text. */
export function helpText(): string {
  const lines = Object.entries(flags).map(([name, spec]) => {
    const fallback = 'default' in spec ? ` (default ${spec.default})` : '';
    return `  --${name}\n      ${spec.description}${fallback}`;
  });
  return `Usage: aggregated-server --kubeconfig <file> [flags]\n\nFlags:\n${lines.join('\n')}`;
}

const list = (value: string | undefined): string[] | undefined =>
  value === undefined ? undefined : value.split(',').map((item) => item.trim()).filter(Boolean);

function bool(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`--${name} must be true or false, not ${JSON.stringify(value)}`);
}

/** Parses argv (without node and the script). */
export function parseOptions(argv: string[]): AggregatedServerOptions {
  const { values } = parseArgs({ args: argv, options: flags, strict: true, allowPositionals: false });
  const get = (name: keyof typeof flags): string => {
    const value = values[name];
    return typeof value === 'string' ? value : '';
  };
  const help = values.help === true;
  if (!help && !get('kubeconfig')) throw new Error('--kubeconfig is required');
  const port = Number(get('secure-port'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--secure-port must be a port number, not ${get('secure-port')}`);
  const gcHeapGrowthPercent = Number(get('gc-heap-growth-percent'));
  if (!Number.isInteger(gcHeapGrowthPercent) || gcHeapGrowthPercent < 0) {
    throw new Error(`--gc-heap-growth-percent must be a non-negative whole number, not ${get('gc-heap-growth-percent')}`);
  }
  const storageVersion = get('storage-version');
  if (!(wardleVersions as readonly string[]).includes(storageVersion)) {
    throw new Error(`--storage-version must be one of ${wardleVersions.join(', ')}, not ${storageVersion}`);
  }
  const etcdServers = list(values['etcd-servers']) ?? [];
  const storage = etcdServers.length > 0 ? 'etcd' : get('storage');
  if (storage !== 'sqlite' && storage !== 'etcd') throw new Error(`--storage must be sqlite or etcd, not ${storage}`);
  if (storage === 'etcd' && etcdServers.length === 0) throw new Error('--storage=etcd needs --etcd-servers');
  const options: AggregatedServerOptions = {
    kubeconfig: get('kubeconfig'),
    bindAddress: get('bind-address'),
    securePort: port,
    dataDir: get('data-dir'),
    storage,
    etcdServers,
    etcdPrefix: get('etcd-prefix'),
    storageVersion: storageVersion as WardleVersion,
    watchCache: bool('watch-cache', get('watch-cache')),
    register: bool('register', get('register')),
    publishStorageVersions: bool('publish-storage-versions', get('publish-storage-versions')),
    serviceNamespace: get('service-namespace'),
    serviceName: get('service-name'),
    gcHeapGrowthPercent,
    help,
  };
  const optional = {
    requestHeaderClientCAFile: values['requestheader-client-ca-file'],
    clientCAFile: values['client-ca-file'],
    requestHeaderAllowedNames: list(values['requestheader-allowed-names']),
    requestHeaderUsernameHeaders: list(values['requestheader-username-headers']),
    requestHeaderUIDHeaders: list(values['requestheader-uid-headers']),
    requestHeaderGroupHeaders: list(values['requestheader-group-headers']),
    requestHeaderExtraHeadersPrefix: list(values['requestheader-extra-headers-prefix']),
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) Object.assign(options, { [key]: value });
  }
  return options;
}
