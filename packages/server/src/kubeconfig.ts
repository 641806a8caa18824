import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

/** Credentials of the kubeconfig user: a client certificate (PEM) or a bearer token. */
export type KubeconfigUser = { clientCertificateData: string; clientKeyData: string } | { token: string };

/** Options of {@link writeKubeconfig}. */
export interface KubeconfigOptions {
  /** `https://127.0.0.1:6443`. */
  server: string;
  /** The CA bundle (PEM) that signed the serving certificate; written base64-encoded. */
  caData?: string;
  user: KubeconfigUser;
  /** Name of the context (also the default cluster and user names). */
  contextName: string;
  /** Default: `contextName`. */
  clusterName?: string;
  /** Default: `<contextName>-admin` for certificates, `<contextName>-user` for tokens. */
  userName?: string;
  /** Default namespace of the context. */
  namespace?: string;
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** The kubeconfig document (clusters, users, contexts, current-context) as a plain object. */
export function kubeconfigDocument(options: KubeconfigOptions): Record<string, unknown> {
  const clusterName = options.clusterName ?? options.contextName;
  const certificateUser = 'clientCertificateData' in options.user;
  const userName = options.userName ?? `${options.contextName}-${certificateUser ? 'admin' : 'user'}`;
  const user =
    'clientCertificateData' in options.user
      ? { 'client-certificate-data': base64(options.user.clientCertificateData), 'client-key-data': base64(options.user.clientKeyData) }
      : { token: options.user.token };
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: clusterName,
        cluster: { server: options.server, ...(options.caData ? { 'certificate-authority-data': base64(options.caData) } : {}) },
      },
    ],
    users: [{ name: userName, user }],
    contexts: [
      {
        name: options.contextName,
        context: { cluster: clusterName, user: userName, ...(options.namespace ? { namespace: options.namespace } : {}) },
      },
    ],
    'current-context': options.contextName,
    preferences: {},
  };
}

/** Writes a standard kubeconfig YAML file (mode 0600, parent directories created). */
export function writeKubeconfig(path: string, options: KubeconfigOptions): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, stringify(kubeconfigDocument(options)), { mode: 0o600 });
  chmodSync(path, 0o600);
}
