import { type FieldDescriptions } from '@kapi/apimachinery';

// The descriptions upstream publishes for authorization.k8s.io/v1 (kubernetes/kubernetes
// api/openapi-spec/v3/apis__authorization.k8s.io__v1_openapi.json), verbatim; field paths as in
// field-descriptions.ts. resourceAttributes.fieldSelector and labelSelector are newer than that
// document: theirs are from the current one.

const reviewKindDescriptions: Record<string, string> = {
  SelfSubjectAccessReview:
    'SelfSubjectAccessReview checks whether or the current user can perform an action.  Not filling in a spec.namespace means "in all namespaces".  Self is a special case, because users should always be able to check whether they can perform an action',
  SubjectAccessReview: 'SubjectAccessReview checks whether or not a user or group can perform an action.',
  LocalSubjectAccessReview:
    'LocalSubjectAccessReview checks whether or not a user or group can perform an action in a given namespace. Having a namespace scoped resource makes it much easier to grant namespace scoped policy that includes permissions checking.',
  SelfSubjectRulesReview:
    "SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace. The returned list of actions may be incomplete depending on the server's authorization mode, and any errors experienced during the evaluation. SelfSubjectRulesReview should be used by UIs to show/hide actions, or to quickly let an end user reason about their permissions. It should NOT Be used by external systems to drive authorization decisions as this raises confused deputy, cache lifetime/revocation, and correctness concerns. SubjectAccessReview, and LocalAccessReview are the correct way to defer authorization decisions to the API server.",
};

/** The description of a review kind (SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview). */
export const reviewKindDescription = (kind: string): string => reviewKindDescriptions[kind] ?? kind;

const specDescriptions: Record<string, string> = {
  SelfSubjectAccessReview:
    'Spec holds information about the request being evaluated.  user and groups must be empty',
  SubjectAccessReview: 'Spec holds information about the request being evaluated',
  LocalSubjectAccessReview:
    'Spec holds information about the request being evaluated.  spec.namespace must be equal to the namespace you made the request against.  If empty, it is defaulted.',
};

/** The fields of an access review (Self, Local or cluster-wide SubjectAccessReview). */
export function accessReviewDescriptions(kind: string): FieldDescriptions {
  const subject: FieldDescriptions =
    kind === 'SelfSubjectAccessReview'
      ? {}
      : {
          'spec.extra':
            'Extra corresponds to the user.Info.GetExtra() method from the authenticator.  Since that is input to the authorizer it needs a reflection here.',
          'spec.groups': "Groups is the groups you're testing for.",
          'spec.uid': 'UID information about the requesting user.',
          'spec.user':
            'User is the user you\'re testing for. If you specify "User" but not "Groups", then is it interpreted as "What if User were not a member of any groups',
        };
  return {
    spec: specDescriptions[kind] ?? '',
    'spec.nonResourceAttributes':
      'NonResourceAttributes describes information for a non-resource access request',
    'spec.nonResourceAttributes.path': 'Path is the URL path of the request',
    'spec.nonResourceAttributes.verb': 'Verb is the standard HTTP verb',
    'spec.resourceAttributes':
      'ResourceAuthorizationAttributes describes information for a resource access request',
    'spec.resourceAttributes.group': 'Group is the API Group of the Resource.  "*" means all.',
    'spec.resourceAttributes.name':
      'Name is the name of the resource being requested for a "get" or deleted for a "delete". "" (empty) means all.',
    'spec.resourceAttributes.namespace':
      'Namespace is the namespace of the action being requested.  Currently, there is no distinction between no namespace and all namespaces "" (empty) is defaulted for LocalSubjectAccessReviews "" (empty) is empty for cluster-scoped resources "" (empty) means "all" for namespace scoped resources from a SubjectAccessReview or SelfSubjectAccessReview',
    'spec.resourceAttributes.resource': 'Resource is one of the existing resource types.  "*" means all.',
    'spec.resourceAttributes.subresource':
      'Subresource is one of the existing resource types.  "" means none.',
    'spec.resourceAttributes.verb':
      'Verb is a kubernetes resource API verb, like: get, list, watch, create, update, delete, proxy.  "*" means all.',
    'spec.resourceAttributes.version': 'Version is the API Version of the Resource.  "*" means all.',
    ...selectorDescriptions('field'),
    ...selectorDescriptions('label'),
    ...subject,
    status: 'Status is filled in by the server and indicates whether the request is allowed or not',
    'status.allowed': 'Allowed is required. True if the action would be allowed, false otherwise.',
    'status.denied':
      'Denied is optional. True if the action would be denied, otherwise false. If both allowed is false and denied is false, then the authorizer has no opinion on whether to authorize the action. Denied may not be true if Allowed is true.',
    'status.evaluationError':
      'EvaluationError is an indication that some error occurred during the authorization check. It is entirely possible to get an error and be able to continue determine authorization status in spite of it. For instance, RBAC can be missing a role, but enough roles are still present and bound to reason about the request.',
    'status.reason': 'Reason is optional.  It indicates why a request was allowed or denied.',
  };
}

/** resourceAttributes.fieldSelector / labelSelector (FieldSelectorAttributes, LabelSelectorAttributes). */
function selectorDescriptions(kind: 'field' | 'label'): FieldDescriptions {
  const path = `spec.resourceAttributes.${kind}Selector`;
  const Kind = kind === 'field' ? 'Field' : 'Label';
  return {
    [path]: `${Kind}SelectorAttributes indicates a ${kind} limited access. Webhook authors are encouraged to * ensure rawSelector and requirements are not both set * consider the requirements field if set * not try to parse or consider the rawSelector field if set. This is to avoid another CVE-2022-2880 (i.e. getting different systems to agree on how exactly to parse a query is not something we want), see https://www.oxeye.io/resources/golang-parameter-smuggling-attack for more details. For the *SubjectAccessReview endpoints of the kube-apiserver: * If rawSelector is empty and requirements are empty, the request is not limited. * If rawSelector is present and requirements are empty, the rawSelector will be parsed and limited if the parsing succeeds. * If rawSelector is empty and requirements are present, the requirements should be honored * If rawSelector is present and requirements are present, the request is invalid.`,
    [`${path}.rawSelector`]:
      "rawSelector is the serialization of a field selector that would be included in a query parameter. Webhook implementations are encouraged to ignore rawSelector. The kube-apiserver's *SubjectAccessReview will parse the rawSelector as long as the requirements are not present.",
    [`${path}.requirements`]: `requirements is the parsed interpretation of a ${kind} selector. All requirements must be met for a resource instance to match the selector. Webhook implementations should handle requirements, but how to handle them is up to the webhook. Since requirements can only limit the request, it is safe to authorize as unlimited request if the requirements are not understood.`,
    [`${path}.requirements[]`]:
      kind === 'field'
        ? 'FieldSelectorRequirement is a selector that contains values, a key, and an operator that relates the key and values.'
        : 'A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.',
    [`${path}.requirements[].key`]: kind === 'field' ? 'key is the field selector key that the requirement applies to.' : 'key is the label key that the selector applies to.',
    [`${path}.requirements[].operator`]:
      kind === 'field'
        ? "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists, DoesNotExist. The list of operators may grow in the future."
        : "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
    [`${path}.requirements[].values`]:
      kind === 'field'
        ? 'values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty.'
        : 'values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.',
  };
}

export const rulesReviewDescriptions: FieldDescriptions = {
  spec: 'Spec holds information about the request being evaluated.',
  'spec.namespace': 'Namespace to evaluate rules for. Required.',
  status: 'Status is filled in by the server and indicates the set of actions a user can perform.',
  'status.evaluationError':
    "EvaluationError can appear in combination with Rules. It indicates an error occurred during rule evaluation, such as an authorizer that doesn't support rule evaluation, and that ResourceRules and/or NonResourceRules may be incomplete.",
  'status.incomplete':
    "Incomplete is true when the rules returned by this call are incomplete. This is most commonly encountered when an authorizer, such as an external authorizer, doesn't support rules evaluation.",
  'status.nonResourceRules':
    "NonResourceRules is the list of actions the subject is allowed to perform on non-resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
  'status.nonResourceRules[].nonResourceURLs':
    'NonResourceURLs is a set of partial urls that a user should have access to.  *s are allowed, but only as the full, final step in the path.  "*" means all.',
  'status.nonResourceRules[].verbs':
    'Verb is a list of kubernetes non-resource API verbs, like: get, post, put, delete, patch, head, options.  "*" means all.',
  'status.resourceRules':
    "ResourceRules is the list of actions the subject is allowed to perform on resources. The list ordering isn't significant, may contain duplicates, and possibly be incomplete.",
  'status.resourceRules[].apiGroups':
    'APIGroups is the name of the APIGroup that contains the resources.  If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed.  "*" means all.',
  'status.resourceRules[].resourceNames':
    'ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.  "*" means all.',
  'status.resourceRules[].resources':
    'Resources is a list of resources this rule applies to.  "*" means all in the specified apiGroups.\n "*/foo" represents the subresource \'foo\' for all resources in the specified apiGroups.',
  'status.resourceRules[].verbs':
    'Verb is a list of kubernetes resource API verbs, like: get, list, watch, create, update, delete, proxy.  "*" means all.',
};
