import { type FieldDescriptions } from '@kapi/apimachinery';

// The descriptions upstream publishes for admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration
// and MutatingWebhookConfiguration (kubernetes/kubernetes
// api/openapi-spec/v3/apis__admissionregistration.k8s.io__v1_openapi.json), verbatim (typos included);
// field paths as in field-descriptions.ts. ValidatingWebhook and MutatingWebhook share most texts; where
// they differ (namespaceSelector; reinvocationPolicy is MutatingWebhook's only), each kind has its own.

/** metav1.LabelSelector and LabelSelectorRequirement, for the selector at `prefix`. */
export const labelSelectorDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.matchExpressions`]:
    'matchExpressions is a list of label selector requirements. The requirements are ANDed.',
  [`${prefix}.matchExpressions[].key`]: 'key is the label key that the selector applies to.',
  [`${prefix}.matchExpressions[].operator`]:
    "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
  [`${prefix}.matchExpressions[].values`]:
    'values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.',
  [`${prefix}.matchLabels`]:
    'matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.',
});

/** WebhookClientConfig and ServiceReference, for the client config at `prefix`. */
const clientConfigDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.caBundle`]:
    "`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used.",
  [`${prefix}.service`]:
    '`service` is a reference to the service for this webhook. Either `service` or `url` must be specified.\n\nIf the webhook is running within the cluster, then you should use `service`.',
  [`${prefix}.service.name`]: '`name` is the name of the service. Required',
  [`${prefix}.service.namespace`]: '`namespace` is the namespace of the service. Required',
  [`${prefix}.service.path`]:
    '`path` is an optional URL path which will be sent in any request to this service.',
  [`${prefix}.service.port`]:
    'If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).',
  [`${prefix}.url`]:
    '`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified.\n\nThe `host` should not refer to a service running in the cluster; use the `service` field instead. The host might be resolved via external DNS in some apiservers (e.g., `kube-apiserver` cannot resolve in-cluster DNS as that would be a layering violation). `host` may also be an IP address.\n\nPlease note that using `localhost` or `127.0.0.1` as a `host` is risky unless you take great care to run this webhook on all hosts which run an apiserver which might need to make calls to this webhook. Such installs are likely to be non-portable, i.e., not easy to turn up in a new cluster.\n\nThe scheme must be "https"; the URL must begin with "https://".\n\nA path is optional, and if present may be any string permissible in a URL. You may use the path to pass an arbitrary string to the webhook, for example, a cluster identifier.\n\nAttempting to use a user or basic auth e.g. "user:password@" is not allowed. Fragments ("#...") and query parameters ("?...") are not allowed, either.',
});

/** RuleWithOperations, for the rule at `prefix`. */
export const ruleDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.apiGroups`]:
    "APIGroups is the API groups the resources belong to. '*' is all groups. If '*' is present, the length of the slice must be one. Required.",
  [`${prefix}.apiVersions`]:
    "APIVersions is the API versions the resources belong to. '*' is all versions. If '*' is present, the length of the slice must be one. Required.",
  [`${prefix}.operations`]:
    "Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations and any future admission operations that are added. If '*' is present, the length of the slice must be one. Required.",
  [`${prefix}.resources`]:
    "Resources is a list of resources this rule applies to.\n\nFor example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.\n\nIf wildcard is present, the validation rule will ensure resources do not overlap with each other.\n\nDepending on the enclosing object, subresources might not be allowed. Required.",
  [`${prefix}.scope`]:
    'scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*" "Cluster" means that only cluster-scoped resources will match this rule. Namespace API objects are cluster-scoped. "Namespaced" means that only namespaced resources will match this rule. "*" means that there are no scope restrictions. Subresources match the scope of their parent resource. Default is "*".',
});

/** MatchCondition, for the condition at `prefix`. */
const matchConditionDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.expression`]:
    "Expression represents the expression which will be evaluated by CEL. Must evaluate to bool. CEL expressions have access to the contents of the AdmissionRequest and Authorizer, organized into CEL variables:\n\n'object' - The object from the incoming request. The value is null for DELETE requests. 'oldObject' - The existing object. The value is null for CREATE requests. 'request' - Attributes of the admission request(/pkg/apis/admission/types.go#AdmissionRequest). 'authorizer' - A CEL Authorizer. May be used to perform authorization checks for the principal (user or service account) of the request.\n  See https://pkg.go.dev/k8s.io/apiserver/pkg/cel/library#Authz\n'authorizer.requestResource' - A CEL ResourceCheck constructed from the 'authorizer' and configured with the\n  request resource.\nDocumentation on CEL: https://kubernetes.io/docs/reference/using-api/cel/\n\nRequired.",
  [`${prefix}.name`]:
    "Name is an identifier for this match condition, used for strategic merging of MatchConditions, as well as providing an identifier for logging purposes. A good name should be descriptive of the associated expression. Name must be a qualified name consisting of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')\n\nRequired.",
});

/** The texts ValidatingWebhook and MutatingWebhook publish identically, for the webhook at `prefix`. */
const webhookDescriptions = (prefix: string): FieldDescriptions => ({
  [`${prefix}.admissionReviewVersions`]:
    'AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects. API server will try to use first version in the list which it supports. If none of the versions specified in this list supported by API server, validation will fail for this object. If a persisted webhook configuration specifies allowed versions and does not include any versions known to the API Server, calls to the webhook will fail and be subject to the failure policy.',
  [`${prefix}.clientConfig`]: 'ClientConfig defines how to communicate with the hook. Required',
  ...clientConfigDescriptions(`${prefix}.clientConfig`),
  [`${prefix}.failurePolicy`]:
    'FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed values are Ignore or Fail. Defaults to Fail.',
  [`${prefix}.matchConditions`]:
    'MatchConditions is a list of conditions that must be met for a request to be sent to this webhook. Match conditions filter requests that have already been matched by the rules, namespaceSelector, and objectSelector. An empty list of matchConditions matches all requests. There are a maximum of 64 match conditions allowed.\n\nThe exact matching logic is (in order):\n  1. If ANY matchCondition evaluates to FALSE, the webhook is skipped.\n  2. If ALL matchConditions evaluate to TRUE, the webhook is called.\n  3. If any matchCondition evaluates to an error (but none are FALSE):\n     - If failurePolicy=Fail, reject the request\n     - If failurePolicy=Ignore, the error is ignored and the webhook is skipped\n\nThis is a beta feature and managed by the AdmissionWebhookMatchConditions feature gate.',
  ...matchConditionDescriptions(`${prefix}.matchConditions[]`),
  [`${prefix}.matchPolicy`]:
    'matchPolicy defines how the "rules" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent".\n\n- Exact: match a request only if it exactly matches a specified rule. For example, if deployments can be modified via apps/v1, apps/v1beta1, and extensions/v1beta1, but "rules" only included `apiGroups:["apps"], apiVersions:["v1"], resources: ["deployments"]`, a request to apps/v1beta1 or extensions/v1beta1 would not be sent to the webhook.\n\n- Equivalent: match a request if modifies a resource listed in rules, even via another API group or version. For example, if deployments can be modified via apps/v1, apps/v1beta1, and extensions/v1beta1, and "rules" only included `apiGroups:["apps"], apiVersions:["v1"], resources: ["deployments"]`, a request to apps/v1beta1 or extensions/v1beta1 would be converted to apps/v1 and sent to the webhook.\n\nDefaults to "Equivalent"',
  [`${prefix}.name`]:
    'The name of the admission webhook. Name should be fully qualified, e.g., imagepolicy.kubernetes.io, where "imagepolicy" is the name of the webhook, and kubernetes.io is the name of the organization. Required.',
  ...labelSelectorDescriptions(`${prefix}.namespaceSelector`),
  [`${prefix}.objectSelector`]:
    'ObjectSelector decides whether to run the webhook based on if the object has matching labels. objectSelector is evaluated against both the oldObject and newObject that would be sent to the webhook, and is considered to match if either object matches the selector. A null object (oldObject in the case of create, or newObject in the case of delete) or an object that cannot have labels (like a DeploymentRollback or a PodProxyOptions object) is not considered to match. Use the object selector only if the webhook is opt-in, because end users may skip the admission webhook by setting the labels. Default to the empty LabelSelector, which matches everything.',
  ...labelSelectorDescriptions(`${prefix}.objectSelector`),
  [`${prefix}.rules`]:
    'Rules describes what operations on what resources/subresources the webhook cares about. The webhook cares about an operation if it matches _any_ Rule. However, in order to prevent ValidatingAdmissionWebhooks and MutatingAdmissionWebhooks from putting the cluster in a state which cannot be recovered from without completely disabling the plugin, ValidatingAdmissionWebhooks and MutatingAdmissionWebhooks are never called on admission requests for ValidatingWebhookConfiguration and MutatingWebhookConfiguration objects.',
  ...ruleDescriptions(`${prefix}.rules[]`),
  [`${prefix}.sideEffects`]:
    'SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun (webhooks created via v1beta1 may also specify Some or Unknown). Webhooks with side effects MUST implement a reconciliation system, since a request may be rejected by a future step in the admission chain and the side effects therefore need to be undone. Requests with the dryRun attribute will be auto-rejected if they match a webhook with sideEffects == Unknown or Some.',
  [`${prefix}.timeoutSeconds`]:
    'TimeoutSeconds specifies the timeout for this webhook. After the timeout passes, the webhook call will be ignored or the API call will fail based on the failure policy. The timeout value must be between 1 and 30 seconds. Default to 10 seconds.',
});

/**
 * NamespaceSelector's text, which differs between the two webhook types only in the labels link
 * (MutatingWebhook's ends with a slash).
 */
const namespaceSelectorDescription = (labelsLink: string): string =>
  'NamespaceSelector decides whether to run the webhook on an object based on whether the namespace for that object matches the selector. If the object itself is a namespace, the matching is performed on object.metadata.labels. If the object is another cluster scoped resource, it never skips the webhook.\n\nFor example, to run the webhook on any objects whose namespace is not associated with "runlevel" of "0" or "1";  you will set the selector as follows: "namespaceSelector": {\n  "matchExpressions": [\n    {\n      "key": "runlevel",\n      "operator": "NotIn",\n      "values": [\n        "0",\n        "1"\n      ]\n    }\n  ]\n}\n\nIf instead you want to only run the webhook on any objects whose namespace is associated with the "environment" of "prod" or "staging"; you will set the selector as follows: "namespaceSelector": {\n  "matchExpressions": [\n    {\n      "key": "environment",\n      "operator": "In",\n      "values": [\n        "prod",\n        "staging"\n      ]\n    }\n  ]\n}\n\n' +
  `See ${labelsLink} for more examples of label selectors.\n\nDefault to the empty LabelSelector, which matches everything.`;

const webhooks = 'Webhooks is a list of webhooks and the affected resources and operations.';

/** The field descriptions of ValidatingWebhookConfiguration (ValidatingWebhook's texts). */
export const validatingWebhookConfigurationDescriptions: FieldDescriptions = {
  webhooks,
  ...webhookDescriptions('webhooks[]'),
  'webhooks[].namespaceSelector': namespaceSelectorDescription(
    'https://kubernetes.io/docs/concepts/overview/working-with-objects/labels',
  ),
};

/** The field descriptions of MutatingWebhookConfiguration (MutatingWebhook's texts). */
export const mutatingWebhookConfigurationDescriptions: FieldDescriptions = {
  webhooks,
  ...webhookDescriptions('webhooks[]'),
  'webhooks[].namespaceSelector': namespaceSelectorDescription(
    'https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/',
  ),
  'webhooks[].reinvocationPolicy':
    'reinvocationPolicy indicates whether this webhook should be called multiple times as part of a single admission evaluation. Allowed values are "Never" and "IfNeeded".\n\nNever: the webhook will not be called more than once in a single admission evaluation.\n\nIfNeeded: the webhook will be called at least one additional time as part of the admission evaluation if the object being admitted is modified by other admission plugins after the initial webhook call. Webhooks that specify this option *must* be idempotent, able to process objects they previously admitted. Note: * the number of additional invocations is not guaranteed to be exactly one. * if additional invocations result in further modifications to the object, webhooks are not guaranteed to be invoked again. * webhooks that use this option may be reordered to minimize the number of additional invocations. * to validate an object after all mutations are guaranteed complete, use a validating admission webhook instead.\n\nDefaults to "Never".',
};
