/**
 * Protobuf descriptors of autoscaling/v1 and autoscaling/v2 HorizontalPodAutoscaler.
 * Field numbers from k8s.io/api/autoscaling/v1/generated.proto and autoscaling/v2/generated.proto.
 */
import {
  labelSelectorDescriptor,
  objectMetaDescriptor,
  type ProtobufMessageDescriptor,
} from '@kapi/apimachinery';
import { field, keep, message, repeatedField } from './descriptor-helpers.js';

/** autoscaling CrossVersionObjectReference (same numbers in v1 and v2). */
export const crossVersionObjectReferenceDescriptor: ProtobufMessageDescriptor = message(
  'CrossVersionObjectReference',
  {
    1: field('kind', 'string', keep),
    2: field('name', 'string', keep),
    3: field('apiVersion', 'string'),
  },
);

/** autoscaling/v1 HorizontalPodAutoscalerSpec. */
export const hpaV1SpecDescriptor: ProtobufMessageDescriptor = message('HorizontalPodAutoscalerSpec', {
  1: field('scaleTargetRef', crossVersionObjectReferenceDescriptor),
  2: field('minReplicas', 'int32', keep),
  3: field('maxReplicas', 'int32', keep),
  4: field('targetCPUUtilizationPercentage', 'int32', keep),
});

/** autoscaling/v1 HorizontalPodAutoscalerStatus. */
export const hpaV1StatusDescriptor: ProtobufMessageDescriptor = message('HorizontalPodAutoscalerStatus', {
  1: field('observedGeneration', 'int64', keep),
  2: field('lastScaleTime', 'time', keep),
  3: field('currentReplicas', 'int32', keep),
  4: field('desiredReplicas', 'int32', keep),
  5: field('currentCPUUtilizationPercentage', 'int32', keep),
});

/** autoscaling/v1 HorizontalPodAutoscaler. */
export const hpaV1Descriptor: ProtobufMessageDescriptor = message('HorizontalPodAutoscaler', {
  1: field('metadata', objectMetaDescriptor),
  2: field('spec', hpaV1SpecDescriptor),
  3: field('status', hpaV1StatusDescriptor),
});

/** autoscaling/v2 MetricIdentifier. */
export const metricIdentifierDescriptor: ProtobufMessageDescriptor = message('MetricIdentifier', {
  1: field('name', 'string', keep),
  2: field('selector', labelSelectorDescriptor),
});

/** autoscaling/v2 MetricTarget. */
export const metricTargetDescriptor: ProtobufMessageDescriptor = message('MetricTarget', {
  1: field('type', 'string', keep),
  2: field('value', 'quantity'),
  3: field('averageValue', 'quantity'),
  4: field('averageUtilization', 'int32', keep),
});

/** autoscaling/v2 MetricValueStatus. */
export const metricValueStatusDescriptor: ProtobufMessageDescriptor = message('MetricValueStatus', {
  1: field('value', 'quantity'),
  2: field('averageValue', 'quantity'),
  3: field('averageUtilization', 'int32', keep),
});

const objectMetricSource = message('ObjectMetricSource', {
  1: field('describedObject', crossVersionObjectReferenceDescriptor),
  2: field('target', metricTargetDescriptor),
  3: field('metric', metricIdentifierDescriptor),
});
const objectMetricStatus = message('ObjectMetricStatus', {
  1: field('metric', metricIdentifierDescriptor),
  2: field('current', metricValueStatusDescriptor),
  3: field('describedObject', crossVersionObjectReferenceDescriptor),
});
const podsMetricSource = message('PodsMetricSource', {
  1: field('metric', metricIdentifierDescriptor),
  2: field('target', metricTargetDescriptor),
});
const podsMetricStatus = message('PodsMetricStatus', {
  1: field('metric', metricIdentifierDescriptor),
  2: field('current', metricValueStatusDescriptor),
});
const resourceMetricSource = message('ResourceMetricSource', {
  1: field('name', 'string', keep),
  2: field('target', metricTargetDescriptor),
});
const resourceMetricStatus = message('ResourceMetricStatus', {
  1: field('name', 'string', keep),
  2: field('current', metricValueStatusDescriptor),
});
const containerResourceMetricSource = message('ContainerResourceMetricSource', {
  1: field('name', 'string', keep),
  2: field('target', metricTargetDescriptor),
  3: field('container', 'string', keep),
});
const containerResourceMetricStatus = message('ContainerResourceMetricStatus', {
  1: field('name', 'string', keep),
  2: field('current', metricValueStatusDescriptor),
  3: field('container', 'string', keep),
});
const externalMetricSource = message('ExternalMetricSource', {
  1: field('metric', metricIdentifierDescriptor),
  2: field('target', metricTargetDescriptor),
});
const externalMetricStatus = message('ExternalMetricStatus', {
  1: field('metric', metricIdentifierDescriptor),
  2: field('current', metricValueStatusDescriptor),
});

/** autoscaling/v2 MetricSpec. */
export const metricSpecDescriptor: ProtobufMessageDescriptor = message('MetricSpec', {
  1: field('type', 'string', keep),
  2: field('object', objectMetricSource),
  3: field('pods', podsMetricSource),
  4: field('resource', resourceMetricSource),
  7: field('containerResource', containerResourceMetricSource),
  5: field('external', externalMetricSource),
});

/** autoscaling/v2 MetricStatus. */
export const metricStatusDescriptor: ProtobufMessageDescriptor = message('MetricStatus', {
  1: field('type', 'string', keep),
  2: field('object', objectMetricStatus),
  3: field('pods', podsMetricStatus),
  4: field('resource', resourceMetricStatus),
  7: field('containerResource', containerResourceMetricStatus),
  5: field('external', externalMetricStatus),
});

/** autoscaling/v2 HPAScalingPolicy. */
export const hpaScalingPolicyDescriptor: ProtobufMessageDescriptor = message('HPAScalingPolicy', {
  1: field('type', 'string', keep),
  2: field('value', 'int32', keep),
  3: field('periodSeconds', 'int32', keep),
});

/** autoscaling/v2 HPAScalingRules. */
export const hpaScalingRulesDescriptor: ProtobufMessageDescriptor = message('HPAScalingRules', {
  3: field('stabilizationWindowSeconds', 'int32', keep),
  1: field('selectPolicy', 'string', keep),
  2: repeatedField('policies', hpaScalingPolicyDescriptor),
  4: field('tolerance', 'quantity'),
});

/** autoscaling/v2 HorizontalPodAutoscalerBehavior. */
export const hpaBehaviorDescriptor: ProtobufMessageDescriptor = message('HorizontalPodAutoscalerBehavior', {
  1: field('scaleUp', hpaScalingRulesDescriptor),
  2: field('scaleDown', hpaScalingRulesDescriptor),
});

/** autoscaling/v2 HorizontalPodAutoscalerCondition. */
export const hpaConditionDescriptor: ProtobufMessageDescriptor = message('HorizontalPodAutoscalerCondition', {
  1: field('type', 'string', keep),
  2: field('status', 'string', keep),
  3: field('lastTransitionTime', 'time'),
  4: field('reason', 'string'),
  5: field('message', 'string'),
  6: field('observedGeneration', 'int64'),
});

/** autoscaling/v2 HorizontalPodAutoscalerSpec. */
export const hpaV2SpecDescriptor: ProtobufMessageDescriptor = message('HorizontalPodAutoscalerSpec', {
  1: field('scaleTargetRef', crossVersionObjectReferenceDescriptor),
  2: field('minReplicas', 'int32', keep),
  3: field('maxReplicas', 'int32', keep),
  4: repeatedField('metrics', metricSpecDescriptor),
  5: field('behavior', hpaBehaviorDescriptor),
});

/** autoscaling/v2 HorizontalPodAutoscalerStatus. */
export const hpaV2StatusDescriptor: ProtobufMessageDescriptor = message('HorizontalPodAutoscalerStatus', {
  1: field('observedGeneration', 'int64', keep),
  2: field('lastScaleTime', 'time', keep),
  3: field('currentReplicas', 'int32'),
  4: field('desiredReplicas', 'int32', keep),
  5: repeatedField('currentMetrics', metricStatusDescriptor),
  6: repeatedField('conditions', hpaConditionDescriptor),
});

/** autoscaling/v2 HorizontalPodAutoscaler. */
export const hpaV2Descriptor: ProtobufMessageDescriptor = message('HorizontalPodAutoscaler', {
  1: field('metadata', objectMetaDescriptor),
  2: field('spec', hpaV2SpecDescriptor),
  3: field('status', hpaV2StatusDescriptor),
});
