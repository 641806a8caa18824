import type { KubeObject } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import { authenticationConfigMap } from './authentication-config.js';
import { wardleGroup } from './wardle-scheme.js';

/** Where the aggregated server is and what it trusts, for {@link registerWithMainServer}. */
export interface RegistrationOptions {
  serviceNamespace: string;
  serviceName: string;
  /** The address the main server reaches this server at (an IP) and its port. */
  address: string;
  port: number;
  /** PEM of the CA of this server's serving certificate (the APIServices' caBundle). */
  caBundle: string;
}

/** The identity the registration's RBAC is for (upstream deploys the server as this service account). */
export const serviceAccountName = 'apiserver';
const fieldManager = 'wardle-apiserver';
const rbac = 'rbac.authorization.k8s.io';

/** The APIServices registered, with sample-apiserver's priorities (v1beta1 preferred). */
export const wardleAPIServices = [
  { version: 'v1beta1', versionPriority: 20 },
  { version: 'v1alpha1', versionPriority: 15 },
] as const;

/** The objects that make the main server route `wardle.example.com` here and let this server delegate. */
export function registrationObjects(options: RegistrationOptions): Array<{ path: string; object: KubeObject }> {
  const namespace = options.serviceNamespace;
  const service = options.serviceName;
  const serviceAccount = { kind: 'ServiceAccount', name: serviceAccountName, namespace };
  const objects: Array<{ path: string; object: KubeObject }> = [
    { path: `/api/v1/namespaces/${namespace}`, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } },
    {
      path: `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccountName}`,
      object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccountName, namespace } },
    },
    {
      path: `/api/v1/namespaces/${namespace}/services/${service}`,
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: service, namespace },
        spec: { ports: [{ port: 443, protocol: 'TCP', targetPort: options.port }] },
      },
    },
    {
      path: `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices/${service}`,
      object: {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: service, namespace, labels: { 'kubernetes.io/service-name': service } },
        addressType: options.address.includes(':') ? 'IPv6' : 'IPv4',
        endpoints: [{ addresses: [options.address], conditions: { ready: true } }],
        ports: [{ name: '', port: options.port, protocol: 'TCP' }],
      },
    },
    {
      path: `/apis/${rbac}/v1/clusterrolebindings/wardle:system:auth-delegator`,
      object: {
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'wardle:system:auth-delegator' },
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'system:auth-delegator' },
        subjects: [serviceAccount],
      },
    },
    // What sample-apiserver's aggregated-apiserver-clusterrole grants: the admission plugins' informers.
    {
      path: `/apis/${rbac}/v1/clusterroles/wardle:aggregated-apiserver`,
      object: {
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'wardle:aggregated-apiserver' },
        rules: [
          // Webhooks' Services, resolved as the aggregator resolves them.
          { apiGroups: [''], resources: ['namespaces', 'services'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: ['apiregistration.k8s.io'], resources: ['apiservices'], verbs: ['get', 'list', 'watch'] },
          {
            apiGroups: ['admissionregistration.k8s.io'],
            resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings'],
            verbs: ['get', 'list', 'watch'],
          },
        ],
      },
    },
    {
      path: `/apis/${rbac}/v1/clusterrolebindings/wardle:aggregated-apiserver`,
      object: {
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'wardle:aggregated-apiserver' },
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'wardle:aggregated-apiserver' },
        subjects: [serviceAccount],
      },
    },
    {
      path: `/apis/${rbac}/v1/namespaces/kube-system/roles/extension-apiserver-authentication-reader`,
      object: {
        apiVersion: `${rbac}/v1`,
        kind: 'Role',
        metadata: { name: 'extension-apiserver-authentication-reader', namespace: 'kube-system' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [authenticationConfigMap.name], verbs: ['get', 'list', 'watch'] }],
      },
    },
    {
      path: `/apis/${rbac}/v1/namespaces/kube-system/rolebindings/wardle-auth-reader`,
      object: {
        apiVersion: `${rbac}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'wardle-auth-reader', namespace: 'kube-system' },
        roleRef: { apiGroup: rbac, kind: 'Role', name: 'extension-apiserver-authentication-reader' },
        subjects: [serviceAccount],
      },
    },
    ...aggregatedClusterRoles(),
  ];
  for (const { version, versionPriority } of wardleAPIServices) {
    const name = `${version}.${wardleGroup}`;
    objects.push({
      path: `/apis/apiregistration.k8s.io/v1/apiservices/${name}`,
      object: {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name },
        spec: {
          group: wardleGroup,
          version,
          service: { namespace, name: service, port: 443 },
          caBundle: Buffer.from(options.caBundle).toString('base64'),
          groupPriorityMinimum: 1000,
          versionPriority,
        },
      },
    });
  }
  return objects;
}

/** `wardle-admin` and `wardle-view`, aggregated into the default admin/edit and view roles. */
function aggregatedClusterRoles(): Array<{ path: string; object: KubeObject }> {
  const roles = [
    { name: 'wardle-admin', verbs: ['*'], labels: ['admin', 'edit'] },
    { name: 'wardle-view', verbs: ['get', 'list', 'watch'], labels: ['view'] },
  ];
  return roles.map(({ name, verbs, labels }) => ({
    path: `/apis/${rbac}/v1/clusterroles/${name}`,
    object: {
      apiVersion: `${rbac}/v1`,
      kind: 'ClusterRole',
      metadata: {
        name,
        labels: Object.fromEntries(labels.map((label) => [`${rbac}/aggregate-to-${label}`, 'true'])),
      },
      rules: [{ apiGroups: [wardleGroup], resources: ['flunders', 'fischers'], verbs }],
    },
  }));
}

/**
 * Creates or updates (server-side apply, field manager `wardle-apiserver`) every registration object on
 * the main server, in order: namespace first, APIServices last (so they point at a ready Service).
 */
export async function registerWithMainServer(client: RestClient, options: RegistrationOptions): Promise<void> {
  for (const { path, object } of registrationObjects(options)) {
    await client.request({
      method: 'PATCH',
      path,
      query: { fieldManager, force: true },
      contentType: 'application/apply-patch+yaml',
      body: object,
    });
  }
}
