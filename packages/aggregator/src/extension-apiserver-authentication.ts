import { StatusError, type KubeObject } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';

/** Name of the ConfigMap (in kube-system) that tells aggregated servers how to authenticate callers. */
export const extensionAPIServerAuthenticationName = 'extension-apiserver-authentication';

/** What the ConfigMap publishes. */
export interface ExtensionAPIServerAuthentication {
  /** PEM of the CA that signs client certificates (`client-ca-file`). */
  clientCA: string;
  /** PEM of the CA that signs the front-proxy client certificate (`requestheader-client-ca-file`). */
  requestHeaderCA: string;
  /** Common names allowed to send identity headers; default `["front-proxy-client"]`. */
  allowedNames?: string[];
}

/**
 * The `kube-system/extension-apiserver-authentication` ConfigMap as kube-apiserver publishes it: the CAs
 * as PEM, and the request-header settings as JSON string arrays (`X-Remote-User`, `X-Remote-Uid`,
 * `X-Remote-Group`, `X-Remote-Extra-`).
 */
export function extensionAPIServerAuthenticationConfigMap(settings: ExtensionAPIServerAuthentication): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: extensionAPIServerAuthenticationName, namespace: 'kube-system' },
    data: {
      'client-ca-file': settings.clientCA,
      'requestheader-client-ca-file': settings.requestHeaderCA,
      'requestheader-allowed-names': JSON.stringify(settings.allowedNames ?? ['front-proxy-client']),
      'requestheader-username-headers': JSON.stringify(['X-Remote-User']),
      'requestheader-uid-headers': JSON.stringify(['X-Remote-Uid']),
      'requestheader-group-headers': JSON.stringify(['X-Remote-Group']),
      'requestheader-extra-headers-prefix': JSON.stringify(['X-Remote-Extra-']),
    },
  };
}

/** The Role upstream bootstraps so aggregated servers may read the ConfigMap. */
const readerRole: KubeObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'extension-apiserver-authentication-reader', namespace: 'kube-system' },
  rules: [
    { apiGroups: [''], resources: ['configmaps'], resourceNames: [extensionAPIServerAuthenticationName], verbs: ['get', 'list', 'watch'] },
  ],
};

/** Creates `object` at `collection`, or replaces what is there (keeping its resourceVersion). */
async function createOrReplace(rest: RestClient, collection: string, object: KubeObject, signal: AbortSignal | undefined): Promise<void> {
  const withSignal = signal ? { signal } : {};
  try {
    await rest.request({ method: 'POST', path: collection, body: object, ...withSignal });
  } catch (error) {
    if (!StatusError.isInstance(error) || error.status.reason !== 'AlreadyExists') throw error;
    const item = `${collection}/${object.metadata.name ?? ''}`;
    const current = await rest.request<KubeObject>({ method: 'GET', path: item, ...withSignal });
    const replacement = { ...object, metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion } };
    await rest.request({ method: 'PUT', path: item, body: replacement, ...withSignal });
  }
}

/**
 * Publishes the ConfigMap and its reader Role in kube-system (the namespace must exist), retrying while
 * the server is not ready to take them.
 */
export async function publishExtensionAPIServerAuthentication(
  rest: RestClient,
  settings: ExtensionAPIServerAuthentication,
  signal?: AbortSignal,
): Promise<void> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    try {
      await createOrReplace(rest, '/api/v1/namespaces/kube-system/configmaps', extensionAPIServerAuthenticationConfigMap(settings), signal);
      await createOrReplace(rest, '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles', readerRole, signal);
      return;
    } catch (error) {
      if (signal?.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
