import { Type, kindSchema, withFieldDescriptions } from '@kapi/apimachinery';
import { hpaDescription, hpaDescriptions } from './autoscaling-descriptions.js';
import { conditionsSchema } from './common-schemas.js';

const group = 'autoscaling';

const crossVersionObjectReference = Type.Object(
  { kind: Type.String(), name: Type.String(), apiVersion: Type.Optional(Type.String()) },
  { 'x-kubernetes-map-type': 'atomic' },
);

const quantity = () =>
  Type.Optional(Type.Union([Type.String(), Type.Number()], { 'x-kubernetes-int-or-string': true }));

const metricTarget = Type.Object({
  type: Type.String({ enum: ['Utilization', 'Value', 'AverageValue'] }),
  value: quantity(),
  averageValue: quantity(),
  averageUtilization: Type.Optional(Type.Integer({ format: 'int32' })),
});

const metricValueStatus = Type.Object({
  value: quantity(),
  averageValue: quantity(),
  averageUtilization: Type.Optional(Type.Integer({ format: 'int32' })),
});

const metricIdentifier = Type.Object({
  name: Type.String(),
  selector: Type.Optional(Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true })),
});

const metricSpec = Type.Object({
  type: Type.String({ enum: ['Object', 'Pods', 'Resource', 'ContainerResource', 'External'] }),
  object: Type.Optional(
    Type.Object({
      describedObject: crossVersionObjectReference,
      target: metricTarget,
      metric: metricIdentifier,
    }),
  ),
  pods: Type.Optional(Type.Object({ metric: metricIdentifier, target: metricTarget })),
  resource: Type.Optional(Type.Object({ name: Type.String(), target: metricTarget })),
  containerResource: Type.Optional(
    Type.Object({ name: Type.String(), target: metricTarget, container: Type.String() }),
  ),
  external: Type.Optional(Type.Object({ metric: metricIdentifier, target: metricTarget })),
});

const metricStatus = Type.Object({
  type: Type.String(),
  object: Type.Optional(
    Type.Object({
      describedObject: crossVersionObjectReference,
      current: metricValueStatus,
      metric: metricIdentifier,
    }),
  ),
  pods: Type.Optional(Type.Object({ metric: metricIdentifier, current: metricValueStatus })),
  resource: Type.Optional(Type.Object({ name: Type.String(), current: metricValueStatus })),
  containerResource: Type.Optional(
    Type.Object({ name: Type.String(), current: metricValueStatus, container: Type.String() }),
  ),
  external: Type.Optional(Type.Object({ metric: metricIdentifier, current: metricValueStatus })),
});

const scalingRules = Type.Object({
  stabilizationWindowSeconds: Type.Optional(Type.Integer({ format: 'int32' })),
  selectPolicy: Type.Optional(Type.String({ enum: ['Max', 'Min', 'Disabled'] })),
  policies: Type.Optional(
    Type.Array(
      Type.Object({
        type: Type.String({ enum: ['Pods', 'Percent'] }),
        value: Type.Integer(),
        periodSeconds: Type.Integer(),
      }),
      { 'x-kubernetes-list-type': 'atomic' },
    ),
  ),
  tolerance: quantity(),
});

/** autoscaling/v1 HorizontalPodAutoscaler. */
export const hpaV1Schema = kindSchema({
  group,
  version: 'v1',
  kind: 'HorizontalPodAutoscaler',
  spec: Type.Object({
    scaleTargetRef: crossVersionObjectReference,
    minReplicas: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, default: 1 })),
    maxReplicas: Type.Integer({ format: 'int32' }),
    targetCPUUtilizationPercentage: Type.Optional(Type.Integer({ format: 'int32' })),
  }),
  status: Type.Object({
    observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
    lastScaleTime: Type.Optional(Type.String({ format: 'date-time' })),
    currentReplicas: Type.Optional(Type.Integer({ format: 'int32' })),
    desiredReplicas: Type.Optional(Type.Integer({ format: 'int32' })),
    currentCPUUtilizationPercentage: Type.Optional(Type.Integer({ format: 'int32' })),
  }),
});

/** autoscaling/v2 HorizontalPodAutoscaler (also the hub version), with upstream's field descriptions. */
export const hpaV2Schema = withFieldDescriptions(
  kindSchema({
    group,
    version: 'v2',
    kind: 'HorizontalPodAutoscaler',
    description: hpaDescription,
    spec: Type.Object({
      scaleTargetRef: crossVersionObjectReference,
      minReplicas: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, default: 1 })),
      maxReplicas: Type.Integer({ format: 'int32' }),
      metrics: Type.Optional(Type.Array(metricSpec, { 'x-kubernetes-list-type': 'atomic' })),
      behavior: Type.Optional(
        Type.Object({ scaleUp: Type.Optional(scalingRules), scaleDown: Type.Optional(scalingRules) }),
      ),
    }),
    status: Type.Object({
      observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
      lastScaleTime: Type.Optional(Type.String({ format: 'date-time' })),
      currentReplicas: Type.Optional(Type.Integer({ format: 'int32' })),
      desiredReplicas: Type.Integer({ format: 'int32' }),
      currentMetrics: Type.Optional(Type.Array(metricStatus, { 'x-kubernetes-list-type': 'atomic' })),
      conditions: conditionsSchema(),
    }),
  }),
  hpaDescriptions,
);
