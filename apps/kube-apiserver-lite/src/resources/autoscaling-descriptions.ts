import { type FieldDescriptions } from '@kapi/apimachinery';

// The descriptions upstream publishes for autoscaling/v2 HorizontalPodAutoscaler (kubernetes/kubernetes
// api/openapi-spec/v3/apis__autoscaling__v2_openapi.json), verbatim; field paths as in
// field-descriptions.ts. `tolerance` is newer than the document these were taken from: its text is from the current one.

export const hpaDescription =
  'HorizontalPodAutoscaler is the configuration for a horizontal pod autoscaler, which automatically manages the replica count of any resource implementing the scale subresource based on the metrics specified.';

const pods = '"pods"';

const reference = (path: string, description: string): FieldDescriptions => ({
  [path]: description,
  [`${path}.apiVersion`]: 'API version of the referent',
  [`${path}.kind`]:
    'Kind of the referent; More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"',
  [`${path}.name`]: 'Name of the referent; More info: http://kubernetes.io/docs/user-guide/identifiers#names',
});

const identifier = (path: string): FieldDescriptions => ({
  [path]: 'metric identifies the target metric by name and selector',
  [`${path}.name`]: 'name is the name of the given metric',
  [`${path}.selector`]:
    'selector is the string-encoded form of a standard kubernetes label selector for the given metric When set, it is passed as an additional parameter to the metrics server for more specific metrics scoping. When unset, just the metricName will be used to gather metrics.',
});

const target = (path: string): FieldDescriptions => ({
  [path]: 'target specifies the target value for the given metric',
  [`${path}.type`]: 'type represents whether the metric type is Utilization, Value, or AverageValue',
  [`${path}.value`]: 'value is the target value of the metric (as a quantity).',
  [`${path}.averageValue`]:
    'averageValue is the target value of the average of the metric across all relevant pods (as a quantity)',
  [`${path}.averageUtilization`]:
    'averageUtilization is the target value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods. Currently only valid for Resource metric source type',
});

const current = (path: string): FieldDescriptions => ({
  [path]: 'current contains the current value for the given metric',
  [`${path}.value`]: 'value is the current value of the metric (as a quantity).',
  [`${path}.averageValue`]:
    'averageValue is the current value of the average of the metric across all relevant pods (as a quantity)',
  [`${path}.averageUtilization`]:
    'currentAverageUtilization is the current value of the average of the resource metric across all relevant pods, represented as a percentage of the requested value of the resource for the pods.',
});

/** What spec.metrics[] and status.currentMetrics[] share: the source fields' own texts. */
const sources = {
  containerResource: `containerResource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing a single container in each pod of the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the ${pods} source. This is an alpha feature and can be enabled by the HPAContainerMetrics feature flag.`,
  external:
    'external refers to a global metric that is not associated with any Kubernetes object. It allows autoscaling based on information coming from components running outside of cluster (for example length of queue in cloud messaging service, or QPS from loadbalancer running outside of cluster).',
  object:
    'object refers to a metric describing a single kubernetes object (for example, hits-per-second on an Ingress object).',
  pods: 'pods refers to a metric describing each pod in the current scale target (for example, transactions-processed-per-second).  The values will be averaged together before being compared to the target value.',
  resource: `resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing each pod in the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the ${pods} source.`,
};

const metric = 'spec.metrics[]';
const status = 'status.currentMetrics[]';

const scalingRules = (path: string, description: string): FieldDescriptions => ({
  [path]: description,
  [`${path}.policies`]:
    'policies is a list of potential scaling polices which can be used during scaling. At least one policy must be specified, otherwise the HPAScalingRules will be discarded as invalid',
  [`${path}.policies[]`]:
    'HPAScalingPolicy is a single policy which must hold true for a specified past interval.',
  [`${path}.policies[].periodSeconds`]:
    'PeriodSeconds specifies the window of time for which the policy should hold true. PeriodSeconds must be greater than zero and less than or equal to 1800 (30 min).',
  [`${path}.policies[].type`]: 'Type is used to specify the scaling policy.',
  [`${path}.policies[].value`]:
    'Value contains the amount of change which is permitted by the policy. It must be greater than zero',
  [`${path}.selectPolicy`]:
    'selectPolicy is used to specify which policy should be used. If not set, the default value Max is used.',
  [`${path}.tolerance`]:
    'tolerance is the tolerance on the ratio between the current and desired metric value under which no updates are made to the desired number of replicas (e.g. 0.01 for 1%). Must be greater than or equal to zero. If not set, the default cluster-wide tolerance is applied (by default 10%).  For example, if autoscaling is configured with a memory consumption target of 100Mi, and scale-down and scale-up tolerances of 5% and 1% respectively, scaling will be triggered when the actual consumption falls below 95Mi or exceeds 101Mi.  This is an beta field and requires the HPAConfigurableTolerance feature gate to be enabled.',
  [`${path}.stabilizationWindowSeconds`]:
    'StabilizationWindowSeconds is the number of seconds for which past recommendations should be considered while scaling up or scaling down. StabilizationWindowSeconds must be greater than or equal to zero and less than or equal to 3600 (one hour). If not set, use the default values: - For scale up: 0 (i.e. no stabilization is done). - For scale down: 300 (i.e. the stabilization window is 300 seconds long).',
});

export const hpaDescriptions: FieldDescriptions = {
  spec: 'spec is the specification for the behaviour of the autoscaler. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status.',
  'spec.behavior':
    'behavior configures the scaling behavior of the target in both Up and Down directions (scaleUp and scaleDown fields respectively). If not set, the default HPAScalingRules for scale up and scale down are used.',
  ...scalingRules(
    'spec.behavior.scaleDown',
    'scaleDown is scaling policy for scaling Down. If not set, the default value is to allow to scale down to minReplicas pods, with a 300 second stabilization window (i.e., the highest recommendation for the last 300sec is used).',
  ),
  ...scalingRules(
    'spec.behavior.scaleUp',
    'scaleUp is scaling policy for scaling Up. If not set, the default value is the higher of:\n  * increase no more than 4 pods per 60 seconds\n  * double the number of pods per 60 seconds\nNo stabilization is used.',
  ),
  'spec.maxReplicas':
    'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.',
  'spec.metrics':
    'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.',
  [metric]:
    'MetricSpec specifies how to scale based on a single metric (only `type` and one other matching field should be set at once).',
  [`${metric}.type`]:
    'type is the type of metric source.  It should be one of "ContainerResource", "External", "Object", "Pods" or "Resource", each mapping to a matching field in the object. Note: "ContainerResource" type is available on when the feature-gate HPAContainerMetrics is enabled',
  [`${metric}.containerResource`]: sources.containerResource,
  [`${metric}.containerResource.container`]:
    'container is the name of the container in the pods of the scaling target',
  [`${metric}.containerResource.name`]: 'name is the name of the resource in question.',
  ...target(`${metric}.containerResource.target`),
  [`${metric}.external`]: sources.external,
  ...identifier(`${metric}.external.metric`),
  ...target(`${metric}.external.target`),
  [`${metric}.object`]: sources.object,
  ...reference(
    `${metric}.object.describedObject`,
    'describedObject specifies the descriptions of a object,such as kind,name apiVersion',
  ),
  ...identifier(`${metric}.object.metric`),
  ...target(`${metric}.object.target`),
  [`${metric}.pods`]: sources.pods,
  ...identifier(`${metric}.pods.metric`),
  ...target(`${metric}.pods.target`),
  [`${metric}.resource`]: sources.resource,
  [`${metric}.resource.name`]: 'name is the name of the resource in question.',
  ...target(`${metric}.resource.target`),
  'spec.minReplicas':
    'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.',
  ...reference(
    'spec.scaleTargetRef',
    'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.',
  ),
  status: 'status is the current information about the autoscaler.',
  'status.conditions':
    'conditions is the set of conditions required for this autoscaler to scale its target, and indicates whether or not those conditions are met.',
  'status.conditions[]':
    'HorizontalPodAutoscalerCondition describes the state of a HorizontalPodAutoscaler at a certain point.',
  'status.conditions[].lastTransitionTime':
    'lastTransitionTime is the last time the condition transitioned from one status to another',
  'status.conditions[].message':
    'message is a human-readable explanation containing details about the transition',
  'status.conditions[].reason': "reason is the reason for the condition's last transition.",
  'status.conditions[].status': 'status is the status of the condition (True, False, Unknown)',
  'status.conditions[].type': 'type describes the current condition',
  'status.currentMetrics': 'currentMetrics is the last read state of the metrics used by this autoscaler.',
  [status]: 'MetricStatus describes the last-read state of a single metric.',
  [`${status}.type`]:
    'type is the type of metric source.  It will be one of "ContainerResource", "External", "Object", "Pods" or "Resource", each corresponds to a matching field in the object. Note: "ContainerResource" type is available on when the feature-gate HPAContainerMetrics is enabled',
  [`${status}.containerResource`]: `container resource refers to a resource metric (such as those specified in requests and limits) known to Kubernetes describing a single container in each pod in the current scale target (e.g. CPU or memory). Such metrics are built in to Kubernetes, and have special scaling options on top of those available to normal per-pod metrics using the ${pods} source.`,
  [`${status}.containerResource.container`]:
    'Container is the name of the container in the pods of the scaling target',
  [`${status}.containerResource.name`]: 'Name is the name of the resource in question.',
  ...current(`${status}.containerResource.current`),
  [`${status}.external`]: sources.external,
  ...identifier(`${status}.external.metric`),
  ...current(`${status}.external.current`),
  [`${status}.object`]: sources.object,
  ...reference(
    `${status}.object.describedObject`,
    'DescribedObject specifies the descriptions of a object,such as kind,name apiVersion',
  ),
  ...identifier(`${status}.object.metric`),
  ...current(`${status}.object.current`),
  [`${status}.pods`]: sources.pods,
  ...identifier(`${status}.pods.metric`),
  ...current(`${status}.pods.current`),
  [`${status}.resource`]: sources.resource,
  [`${status}.resource.name`]: 'Name is the name of the resource in question.',
  ...current(`${status}.resource.current`),
  'status.currentReplicas':
    'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.',
  'status.desiredReplicas':
    'desiredReplicas is the desired number of replicas of pods managed by this autoscaler, as last calculated by the autoscaler.',
  'status.lastScaleTime':
    'lastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods, used by the autoscaler to control how often the number of pods is changed.',
  'status.observedGeneration':
    'observedGeneration is the most recent generation observed by this autoscaler.',
};
