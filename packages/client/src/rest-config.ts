import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** How to reach and authenticate to an apiserver. */
export interface RestConfig {
  /** `https://127.0.0.1:6443`. */
  server: string;
  /** PEM CA bundle to verify the server with. */
  ca?: string;
  /** PEM client certificate and key. */
  cert?: string;
  key?: string;
  /** Bearer token. */
  token?: string;
  insecureSkipTLSVerify?: boolean;
  /** User-Agent header. */
  userAgent?: string;
  /**
   * Serves the client's requests other than watches without the network: a server's clients of itself
   * pass its `GenericAPIServer.serveInProcess` here, and their requests go through its handler chain in
   * their own process (authenticated by the same headers) with no TLS, socket or HTTP parsing. Watches
   * still use a connection to `server`. `timeoutMs` is not applied to these requests: the server's own
   * request timeout bounds them.
   */
  inProcess?: InProcessServe;
}

/** A request {@link RestConfig.inProcess} serves: method, path and query, lower-case headers, body. */
export interface InProcessCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Aborting it abandons the request (the server sees its client go away) and rejects the call. */
  signal?: AbortSignal;
}

/** Serves an {@link InProcessCall}: resolves with its status, the headers sent and the whole body. */
export type InProcessServe = (call: InProcessCall) => Promise<{ statusCode: number; headers: Record<string, number | string | string[] | undefined>; body: Buffer }>;

interface KubeconfigFile {
  'current-context'?: string;
  clusters?: Array<{ name: string; cluster: Record<string, unknown> }>;
  users?: Array<{ name: string; user: Record<string, unknown> }>;
  contexts?: Array<{ name: string; context: { cluster: string; user: string; namespace?: string } }>;
}

function fileOrData(entry: Record<string, unknown>, dataField: string, fileField: string): string | undefined {
  const data = entry[dataField];
  if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8');
  const file = entry[fileField];
  if (typeof file === 'string') return readFileSync(file, 'utf8');
  return undefined;
}

/** Reads a kubeconfig file (YAML or JSON) and returns the config of its current (or the named) context. */
export function loadKubeconfig(path: string, contextName?: string): RestConfig & { namespace?: string } {
  return kubeconfigFromText(readFileSync(path, 'utf8'), contextName);
}

/** Parses kubeconfig text; see {@link loadKubeconfig}. */
export function kubeconfigFromText(text: string, contextName?: string): RestConfig & { namespace?: string } {
  const file = parse(text) as KubeconfigFile;
  const name = contextName ?? file['current-context'];
  const context = file.contexts?.find((c) => c.name === name)?.context;
  if (!context) throw new Error(`kubeconfig: context ${JSON.stringify(name)} not found`);
  const cluster = file.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster || typeof cluster.server !== 'string') throw new Error(`kubeconfig: cluster ${context.cluster} not found`);
  const user = file.users?.find((u) => u.name === context.user)?.user ?? {};
  const config: RestConfig & { namespace?: string } = { server: cluster.server };
  const ca = fileOrData(cluster, 'certificate-authority-data', 'certificate-authority');
  if (ca) config.ca = ca;
  if (cluster['insecure-skip-tls-verify'] === true) config.insecureSkipTLSVerify = true;
  const cert = fileOrData(user, 'client-certificate-data', 'client-certificate');
  const key = fileOrData(user, 'client-key-data', 'client-key');
  if (cert) config.cert = cert;
  if (key) config.key = key;
  if (typeof user.token === 'string') config.token = user.token;
  if (context.namespace) config.namespace = context.namespace;
  return config;
}
