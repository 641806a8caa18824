import { type FieldDescriptions } from '@kapi/apimachinery';

// The descriptions upstream publishes for the rbac.authorization.k8s.io/v1 kinds (kubernetes/kubernetes
// api/openapi-spec/v3/apis__rbac.authorization.k8s.io__v1_openapi.json), verbatim; field paths as
// in field-descriptions.ts.

/** The fields of a PolicyRule under `prefix` (`rules[]`). */
const policyRuleDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.apiGroups`]:
    'APIGroups is the name of the APIGroup that contains the resources.  If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed.',
  [`${prefix}.nonResourceURLs`]:
    'NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path Since non-resource URLs are not namespaced, this field is only applicable for ClusterRoles referenced from a ClusterRoleBinding. Rules can either apply to API resources (such as "pods" or "secrets") or non-resource URL paths (such as "/api"),  but not both.',
  [`${prefix}.resourceNames`]:
    'ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.',
  [`${prefix}.resources`]:
    "Resources is a list of resources this rule applies to. '*' represents all resources.",
  [`${prefix}.verbs`]:
    "Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs.",
});

/** The fields of a Subject under `prefix` (`subjects[]`). */
const subjectDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.apiGroup`]:
    'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.',
  [`${prefix}.kind`]:
    'Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount". If the Authorizer does not recognized the kind value, the Authorizer should report an error.',
  [`${prefix}.name`]: 'Name of the object being referenced.',
  [`${prefix}.namespace`]:
    'Namespace of the referenced object.  If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer should report an error.',
});

/** The fields of a RoleRef under `prefix` (`roleRef`). */
const roleRefDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.apiGroup`]: 'APIGroup is the group for the resource being referenced',
  [`${prefix}.kind`]: 'Kind is the type of resource being referenced',
  [`${prefix}.name`]: 'Name is the name of resource being referenced',
});

export const roleDescription =
  'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.';

export const roleDescriptions: FieldDescriptions = {
  rules: 'Rules holds all the PolicyRules for this Role',
  ...policyRuleDescriptions('rules[]'),
};

export const clusterRoleDescription =
  'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.';

export const clusterRoleDescriptions: FieldDescriptions = {
  aggregationRule:
    'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped by the controller.',
  'aggregationRule.clusterRoleSelectors':
    "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added",
  // metav1.LabelSelector and LabelSelectorRequirement.
  'aggregationRule.clusterRoleSelectors[].matchExpressions':
    'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
  'aggregationRule.clusterRoleSelectors[].matchExpressions[].key':
    'key is the label key that the selector applies to.',
  'aggregationRule.clusterRoleSelectors[].matchExpressions[].operator':
    "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
  'aggregationRule.clusterRoleSelectors[].matchExpressions[].values':
    'values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.',
  'aggregationRule.clusterRoleSelectors[].matchLabels':
    'matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.',
  rules: 'Rules holds all the PolicyRules for this ClusterRole',
  ...policyRuleDescriptions('rules[]'),
};

export const roleBindingDescription =
  'RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which namespace it exists in.  RoleBindings in a given namespace only have effect in that namespace.';

export const roleBindingDescriptions: FieldDescriptions = {
  roleRef:
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ...roleRefDescriptions('roleRef'),
  subjects: 'Subjects holds references to the objects the role applies to.',
  ...subjectDescriptions('subjects[]'),
};

export const clusterRoleBindingDescription =
  'ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global namespace, and adds who information via Subject.';

export const clusterRoleBindingDescriptions: FieldDescriptions = {
  roleRef:
    'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ...roleRefDescriptions('roleRef'),
  subjects: 'Subjects holds references to the objects the role applies to.',
  ...subjectDescriptions('subjects[]'),
};
