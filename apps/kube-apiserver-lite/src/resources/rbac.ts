import { Type, kindSchema, nameIsPathSegment, type FieldError, type KindDefinition, type KubeObject, withFieldDescriptions, labelSelectorSchema } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import {
  clusterRoleBindingDescription,
  clusterRoleBindingDescriptions,
  clusterRoleDescription,
  clusterRoleDescriptions,
  roleBindingDescription,
  roleBindingDescriptions,
  roleDescription,
  roleDescriptions,
} from './rbac-descriptions.js';

const group = 'rbac.authorization.k8s.io';
const version = 'v1';
const strings = () => Type.Optional(Type.Array(Type.String()));

const policyRuleSchema = Type.Object({
  verbs: Type.Array(Type.String()),
  apiGroups: strings(),
  resources: strings(),
  resourceNames: strings(),
  nonResourceURLs: strings(),
});

const subjectSchema = Type.Object(
  {
    kind: Type.String(),
    apiGroup: Type.Optional(Type.String()),
    name: Type.String(),
    namespace: Type.Optional(Type.String()),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

const roleRefSchema = Type.Object(
  { apiGroup: Type.String(), kind: Type.String(), name: Type.String() },
  { 'x-kubernetes-map-type': 'atomic' },
);

const rules = () => Type.Optional(Type.Array(policyRuleSchema, { 'x-kubernetes-list-type': 'atomic' }));
const subjects = () => Type.Optional(Type.Array(subjectSchema, { 'x-kubernetes-list-type': 'atomic' }));

export const rbacKinds: KindDefinition[] = [
  {
    group,
    version,
    kind: 'Role',
    schema: withFieldDescriptions(
      kindSchema({ group, version, kind: 'Role', description: roleDescription, properties: { rules: rules() } }),
      roleDescriptions,
    ),
  },
  {
    group,
    version,
    kind: 'ClusterRole',
    schema: withFieldDescriptions(
      kindSchema({
        group,
        version,
        kind: 'ClusterRole',
        description: clusterRoleDescription,
        properties: {
          rules: rules(),
          aggregationRule: Type.Optional(Type.Object({ clusterRoleSelectors: Type.Optional(Type.Array(labelSelectorSchema)) })),
        },
      }),
      clusterRoleDescriptions,
    ),
  },
  {
    group,
    version,
    kind: 'RoleBinding',
    schema: withFieldDescriptions(
      kindSchema({
        group,
        version,
        kind: 'RoleBinding',
        description: roleBindingDescription,
        properties: { subjects: subjects(), roleRef: roleRefSchema },
      }),
      roleBindingDescriptions,
    ),
  },
  {
    group,
    version,
    kind: 'ClusterRoleBinding',
    schema: withFieldDescriptions(
      kindSchema({
        group,
        version,
        kind: 'ClusterRoleBinding',
        description: clusterRoleBindingDescription,
        properties: { subjects: subjects(), roleRef: roleRefSchema },
      }),
      clusterRoleBindingDescriptions,
    ),
  },
];

function validateRules(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const list = (object.rules as Array<{ verbs?: string[]; resources?: string[]; apiGroups?: string[]; nonResourceURLs?: string[] }>) ?? [];
  list.forEach((rule, index) => {
    if (!rule.verbs || rule.verbs.length === 0) {
      errors.push({ field: `rules[${index}].verbs`, type: 'FieldValueRequired', detail: 'verbs must contain at least one value' });
    }
    if (rule.resources?.length && rule.apiGroups === undefined) {
      errors.push({ field: `rules[${index}].apiGroups`, type: 'FieldValueRequired', detail: 'resource rules must supply at least one api group' });
    }
  });
  return errors;
}

function validateBinding(object: KubeObject, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const roleRef = object.roleRef as { apiGroup?: string; kind?: string; name?: string } | undefined;
  if (!roleRef?.name) errors.push({ field: 'roleRef.name', type: 'FieldValueRequired', detail: '' });
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (roleRef && !kinds.includes(roleRef.kind ?? '')) {
    errors.push({ field: 'roleRef.kind', type: 'FieldValueNotSupported', value: roleRef.kind, detail: `supported values: ${kinds.map((k) => `"${k}"`).join(', ')}` });
  }
  if (roleRef && roleRef.apiGroup !== group) {
    errors.push({ field: 'roleRef.apiGroup', type: 'FieldValueNotSupported', value: roleRef.apiGroup, detail: `supported values: "${group}"` });
  }
  const list = (object.subjects as Array<{ kind?: string; name?: string; namespace?: string }>) ?? [];
  list.forEach((subject, index) => {
    if (!['User', 'Group', 'ServiceAccount'].includes(subject.kind ?? '')) {
      errors.push({ field: `subjects[${index}].kind`, type: 'FieldValueNotSupported', value: subject.kind, detail: 'supported values: "ServiceAccount", "User", "Group"' });
    }
    if (!subject.name) errors.push({ field: `subjects[${index}].name`, type: 'FieldValueRequired', detail: '' });
    if (subject.kind === 'ServiceAccount' && !subject.namespace && !namespaced) {
      errors.push({ field: `subjects[${index}].namespace`, type: 'FieldValueRequired', detail: '' });
    }
  });
  return errors;
}

const roleRefImmutable = (object: KubeObject, old: KubeObject): FieldError[] =>
  JSON.stringify(object.roleRef) === JSON.stringify(old.roleRef)
    ? []
    : [{ field: 'roleRef', type: 'FieldValueInvalid', value: object.roleRef, detail: 'cannot change roleRef' }];

const age = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' } as const;
/** Upstream's role printer: the creation time itself (RFC 3339), not an age. */
const createdAt = [{ name: 'Created At', type: 'date', jsonPath: '.metadata.creationTimestamp', cell: (object: KubeObject) => object.metadata.creationTimestamp ?? null }] as const;

type Subject = { kind?: string; name?: string; namespace?: string };
/** The subjects of a binding of one kind, as upstream's printer lists them (`ns/name` for service accounts). */
const subjectsOf = (kind: string) => (object: KubeObject) =>
  ((object['subjects'] ?? []) as Subject[])
    .filter((subject) => subject.kind === kind)
    .map((subject) => (kind === 'ServiceAccount' ? `${subject.namespace ?? ''}/${subject.name ?? ''}` : (subject.name ?? '')))
    .join(', ');
const bindingColumns = [
  {
    name: 'Role',
    type: 'string',
    jsonPath: '.roleRef',
    description: 'The role this binding grants',
    cell: (object: KubeObject) => {
      const ref = (object['roleRef'] ?? {}) as { kind?: string; name?: string };
      return `${ref.kind ?? ''}/${ref.name ?? ''}`;
    },
  },
  age,
  { name: 'Users', type: 'string', priority: 1, jsonPath: '.subjects', description: 'Users in the roleBinding', cell: subjectsOf('User') },
  { name: 'Groups', type: 'string', priority: 1, jsonPath: '.subjects', description: 'Groups in the roleBinding', cell: subjectsOf('Group') },
  { name: 'ServiceAccounts', type: 'string', priority: 1, jsonPath: '.subjects', description: 'ServiceAccounts in the roleBinding', cell: subjectsOf('ServiceAccount') },
] as const;

export const rbacResources: ResourceDefinition[] = [
  {
    group, resource: 'roles', kind: 'Role', namespaced: true, versions: [version], nameValidator: nameIsPathSegment, tracksGeneration: false, returnDeletedObject: false,
    printerColumns: [...createdAt],
    strategy: { validate: validateRules, validateUpdate: validateRules },
  },
  {
    group, resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, versions: [version], nameValidator: nameIsPathSegment, tracksGeneration: false, returnDeletedObject: false,
    printerColumns: [...createdAt],
    strategy: { validate: validateRules, validateUpdate: validateRules },
  },
  {
    group, resource: 'rolebindings', kind: 'RoleBinding', namespaced: true, versions: [version], nameValidator: nameIsPathSegment, tracksGeneration: false, returnDeletedObject: false,
    printerColumns: [...bindingColumns],
    strategy: {
      validate: (object) => validateBinding(object, true),
      validateUpdate: (object, old) => [...validateBinding(object, true), ...roleRefImmutable(object, old)],
    },
  },
  {
    group, resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false, versions: [version], nameValidator: nameIsPathSegment, tracksGeneration: false, returnDeletedObject: false,
    printerColumns: [...bindingColumns],
    strategy: {
      validate: (object) => validateBinding(object, false),
      validateUpdate: (object, old) => [...validateBinding(object, false), ...roleRefImmutable(object, old)],
    },
  },
];

const rule = (verbs: string[], apiGroups: string[], resources: string[]) => ({ verbs, apiGroups, resources });
const read = ['get', 'list', 'watch'];
const write = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const bootstrapLabels = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const clusterRole = (name: string, rules: unknown[], labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: `${group}/${version}`,
  kind: 'ClusterRole',
  metadata: { name, labels: { ...bootstrapLabels, ...labels }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
  rules,
});

/**
 * The default cluster roles (cluster-admin; admin, edit and view aggregated from system:aggregate-to-*;
 * system:discovery, system:basic-user, system:public-info-viewer, system:service-account-issuer-discovery) and
 * their bindings, as upstream's bootstrap policy.
 */
export function bootstrapRbacObjects(): { clusterRoles: KubeObject[]; clusterRoleBindings: KubeObject[] } {
  // As upstream's: edit writes services but not endpoints or endpointslices (CVE-2021-25740), which view reads.
  const namespacedData = ['configmaps', 'secrets', 'serviceaccounts', 'services', 'events'];
  const viewRules = [
    rule(read, [''], ['configmaps', 'events', 'serviceaccounts', 'services', 'services/status', 'endpoints', 'namespaces', 'namespaces/status']),
    rule(read, ['discovery.k8s.io'], ['endpointslices']),
    rule(read, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
    rule(read, ['coordination.k8s.io'], ['leases']),
  ];
  const editRules = [
    rule([...read, ...write], [''], namespacedData),
    rule([...read, ...write], ['autoscaling'], ['horizontalpodautoscalers']),
    rule([...read, ...write], ['coordination.k8s.io'], ['leases']),
  ];
  const adminRules = [
    rule([...read, ...write], [group], ['roles', 'rolebindings']),
    rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
  ];
  // As upstream: admin, edit and view are aggregated (the aggregation controller fills their rules) from
  // the system:aggregate-to-* roles, each user-facing role also aggregating into the next wider one.
  const aggregateLabel = (role: string) => ({ [`rbac.authorization.k8s.io/aggregate-to-${role}`]: 'true' });
  const aggregated = (name: string, labels: Record<string, string> = {}): KubeObject => ({
    ...clusterRole(name, [], labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregateLabel(name) }] },
  });
  return {
    clusterRoles: [
      clusterRole('cluster-admin', [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ]),
      aggregated('admin'),
      aggregated('edit', aggregateLabel('admin')),
      aggregated('view', aggregateLabel('edit')),
      clusterRole('system:aggregate-to-admin', adminRules, aggregateLabel('admin')),
      clusterRole('system:aggregate-to-edit', editRules, aggregateLabel('edit')),
      clusterRole('system:aggregate-to-view', viewRules, aggregateLabel('view')),
      clusterRole('system:discovery', [
        { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'] },
      ]),
      clusterRole('system:basic-user', [
        rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
        rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
      ]),
      clusterRole('system:public-info-viewer', [
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'] },
      ]),
      clusterRole('system:service-account-issuer-discovery', [
        { verbs: ['get'], nonResourceURLs: ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'] },
      ]),
      clusterRole('system:auth-delegator', [
        rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
        rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
      ]),
    ],
    clusterRoleBindings: [
      {
        apiVersion: `${group}/${version}`,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'cluster-admin', labels: bootstrapLabels, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
        roleRef: { apiGroup: group, kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ apiGroup: group, kind: 'Group', name: 'system:masters' }],
      },
      ...[
        { name: 'system:discovery', groups: ['system:authenticated'] },
        { name: 'system:basic-user', groups: ['system:authenticated'] },
        { name: 'system:public-info-viewer', groups: ['system:authenticated', 'system:unauthenticated'] },
        { name: 'system:service-account-issuer-discovery', groups: ['system:serviceaccounts'] },
      ].map(({ name, groups }) => ({
        apiVersion: `${group}/${version}`,
        kind: 'ClusterRoleBinding',
        metadata: { name, labels: bootstrapLabels, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
        roleRef: { apiGroup: group, kind: 'ClusterRole', name },
        subjects: groups.map((subject) => ({ apiGroup: group, kind: 'Group', name: subject })),
      })),
    ],
  };
}
