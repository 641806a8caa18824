import type { ConversionDefinition, FieldError, KindDefinition, KubeObject } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { hpaV1Schema, hpaV2Schema } from './autoscaling-schemas.js';

const group = 'autoscaling';
const kind = 'HorizontalPodAutoscaler';

/** Annotations that carry v2-only data through autoscaling/v1, as upstream does, so round trips lose nothing. */
export const hpaAnnotations = {
  metrics: 'autoscaling.alpha.kubernetes.io/metrics',
  currentMetrics: 'autoscaling.alpha.kubernetes.io/current-metrics',
  conditions: 'autoscaling.alpha.kubernetes.io/conditions',
  behavior: 'autoscaling.alpha.kubernetes.io/behavior',
} as const;

interface MetricSpec {
  type: string;
  resource?: { name: string; target: { type: string; averageUtilization?: number } };
}
interface MetricStatus {
  type: string;
  resource?: { name: string; current: { averageUtilization?: number } };
}

const isCpuUtilization = (metric: MetricSpec) =>
  metric.type === 'Resource' && metric.resource?.name === 'cpu' && metric.resource.target.type === 'Utilization';
const isCpuCurrent = (metric: MetricStatus) =>
  metric.type === 'Resource' && metric.resource?.name === 'cpu' && metric.resource.current.averageUtilization !== undefined;

function takeAnnotation<T>(annotations: Record<string, string>, key: string): T | undefined {
  const text = annotations[key];
  if (text === undefined) return undefined;
  delete annotations[key];
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

function cleanMetadata(object: KubeObject): KubeObject['metadata'] {
  const metadata = { ...object.metadata };
  if (metadata.annotations) metadata.annotations = { ...metadata.annotations };
  return metadata;
}

/** autoscaling/v1 -> hub (v2): targetCPUUtilizationPercentage becomes a Resource cpu Utilization metric. */
export function hpaV1ToV2(object: KubeObject): KubeObject {
  const metadata = cleanMetadata(object);
  const annotations = metadata.annotations ?? {};
  const spec = { ...((object.spec ?? {}) as Record<string, unknown>) };
  const status = object.status ? { ...(object.status as Record<string, unknown>) } : undefined;
  const otherMetrics = takeAnnotation<MetricSpec[]>(annotations, hpaAnnotations.metrics) ?? [];
  const currentOther = takeAnnotation<MetricStatus[]>(annotations, hpaAnnotations.currentMetrics) ?? [];
  const conditions = takeAnnotation<unknown[]>(annotations, hpaAnnotations.conditions);
  const behavior = takeAnnotation<unknown>(annotations, hpaAnnotations.behavior);
  if (metadata.annotations && Object.keys(annotations).length === 0) delete metadata.annotations;

  const metrics: MetricSpec[] = [];
  const cpu = spec.targetCPUUtilizationPercentage as number | undefined;
  delete spec.targetCPUUtilizationPercentage;
  if (cpu !== undefined) metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: cpu } } });
  metrics.push(...otherMetrics);
  if (metrics.length) spec.metrics = metrics;
  if (behavior !== undefined) spec.behavior = behavior;

  const result: KubeObject = { ...object, apiVersion: `${group}/v2`, kind, metadata, spec };
  if (status) {
    const currentCpu = status.currentCPUUtilizationPercentage as number | undefined;
    delete status.currentCPUUtilizationPercentage;
    const currentMetrics: MetricStatus[] = [];
    if (currentCpu !== undefined) currentMetrics.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: currentCpu } } });
    currentMetrics.push(...currentOther);
    if (currentMetrics.length) status.currentMetrics = currentMetrics;
    if (conditions !== undefined) status.conditions = conditions;
    if (status.desiredReplicas === undefined) status.desiredReplicas = 0;
    result.status = status;
  }
  return result;
}

/** hub (v2) -> autoscaling/v1: the first cpu Utilization metric becomes targetCPUUtilizationPercentage; the rest goes to annotations. */
export function hpaV2ToV1(object: KubeObject): KubeObject {
  const metadata = cleanMetadata(object);
  const annotations: Record<string, string> = { ...(metadata.annotations ?? {}) };
  const spec = { ...((object.spec ?? {}) as Record<string, unknown>) };
  const metrics = (spec.metrics as MetricSpec[] | undefined) ?? [];
  delete spec.metrics;
  const cpuIndex = metrics.findIndex(isCpuUtilization);
  if (cpuIndex >= 0) spec.targetCPUUtilizationPercentage = metrics[cpuIndex]?.resource?.target.averageUtilization;
  const rest = metrics.filter((_, index) => index !== cpuIndex);
  if (rest.length) annotations[hpaAnnotations.metrics] = JSON.stringify(rest);
  if (spec.behavior !== undefined) {
    annotations[hpaAnnotations.behavior] = JSON.stringify(spec.behavior);
    delete spec.behavior;
  }
  const result: KubeObject = { ...object, apiVersion: `${group}/v1`, kind, metadata, spec };
  if (object.status) {
    const status = { ...(object.status as Record<string, unknown>) };
    const current = (status.currentMetrics as MetricStatus[] | undefined) ?? [];
    delete status.currentMetrics;
    const currentCpuIndex = current.findIndex(isCpuCurrent);
    if (currentCpuIndex >= 0) status.currentCPUUtilizationPercentage = current[currentCpuIndex]?.resource?.current.averageUtilization;
    const currentRest = current.filter((_, index) => index !== currentCpuIndex);
    if (currentRest.length) annotations[hpaAnnotations.currentMetrics] = JSON.stringify(currentRest);
    if (status.conditions !== undefined) {
      annotations[hpaAnnotations.conditions] = JSON.stringify(status.conditions);
      delete status.conditions;
    }
    // v1's currentReplicas has no omitempty upstream: it is always there.
    status.currentReplicas ??= 0;
    result.status = status;
  }
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  return result;
}

function validateHpa(object: KubeObject): FieldError[] {
  const spec = (object.spec ?? {}) as { minReplicas?: number; maxReplicas?: number; scaleTargetRef?: { kind?: string; name?: string } };
  const errors: FieldError[] = [];
  if (spec.maxReplicas !== undefined && spec.maxReplicas < 1) {
    errors.push({ field: 'spec.maxReplicas', type: 'FieldValueInvalid', value: spec.maxReplicas, detail: 'must be greater than or equal to 1' });
  }
  if (spec.minReplicas !== undefined && spec.maxReplicas !== undefined && spec.maxReplicas < spec.minReplicas) {
    errors.push({ field: 'spec.maxReplicas', type: 'FieldValueInvalid', value: spec.maxReplicas, detail: 'must be greater than or equal to `minReplicas`' });
  }
  if (!spec.scaleTargetRef?.kind) errors.push({ field: 'spec.scaleTargetRef.kind', type: 'FieldValueRequired', detail: '' });
  if (!spec.scaleTargetRef?.name) errors.push({ field: 'spec.scaleTargetRef.name', type: 'FieldValueRequired', detail: '' });
  return errors;
}

/** Upstream's `DefaultCPUUtilization`: the target of an HPA that names no metric. */
const DEFAULT_CPU_UTILIZATION = 80;

interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: string;
  policies?: Array<{ type: string; value: number; periodSeconds: number }>;
}

/** Fills the unset parts of one direction's scaling rules from upstream's defaults (`copyHPAScalingRules`). */
function withDefaults(rules: ScalingRules | undefined, defaults: ScalingRules): ScalingRules {
  return { ...defaults, ...Object.fromEntries(Object.entries(rules ?? {}).filter(([, value]) => value !== undefined && value !== null)) };
}

/**
 * Upstream's autoscaling/v2 defaults: a CPU utilization target of 80% when no metric is named, and, when a
 * behavior is given, both directions filled in (scale up: no stabilization, Max of 4 pods or 100% per 15 s;
 * scale down: Max of 100% per 15 s, the stabilization window left to the controller's flag).
 */
export function defaultHpaV2(object: KubeObject): void {
  const spec = (object.spec ??= {}) as { metrics?: MetricSpec[]; behavior?: { scaleUp?: ScalingRules; scaleDown?: ScalingRules } };
  if (!spec.metrics || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  if (spec.behavior) {
    spec.behavior.scaleUp = withDefaults(spec.behavior.scaleUp, {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    });
    spec.behavior.scaleDown = withDefaults(spec.behavior.scaleDown, { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
  }
}

/**
 * autoscaling/v1: an HPA with no CPU target and no other metric (carried in an annotation) targets 80%,
 * what upstream shows for it, since the v2 default applies to the stored object.
 */
export function defaultHpaV1(object: KubeObject): void {
  const spec = (object.spec ??= {}) as { targetCPUUtilizationPercentage?: number };
  if (spec.targetCPUUtilizationPercentage === undefined && object.metadata.annotations?.[hpaAnnotations.metrics] === undefined)
    spec.targetCPUUtilizationPercentage = DEFAULT_CPU_UTILIZATION;
}

export const autoscalingKinds: KindDefinition[] = [
  { group, version: 'v2', kind, schema: hpaV2Schema, defaulter: defaultHpaV2 },
  { group, version: 'v1', kind, schema: hpaV1Schema, defaulter: defaultHpaV1 },
];

export const autoscalingConversions: ConversionDefinition[] = [
  { group, kind, version: 'v1', toHub: hpaV1ToV2, fromHub: hpaV2ToV1 },
];

export const autoscalingResources: ResourceDefinition[] = [
  {
    group,
    resource: 'horizontalpodautoscalers',
    returnDeletedObject: false,
    kind,
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    versions: ['v2', 'v1'],
    storageVersion: 'v2',
    subresources: { status: true },
    printerColumns: [
      { name: 'Reference', type: 'string', jsonPath: '.spec.scaleTargetRef.name' },
      { name: 'MinPods', type: 'integer', jsonPath: '.spec.minReplicas' },
      { name: 'MaxPods', type: 'integer', jsonPath: '.spec.maxReplicas' },
      { name: 'Replicas', type: 'integer', jsonPath: '.status.currentReplicas' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: {
      // The status a new HPA shows upstream (a non-pointer struct whose desiredReplicas has no omitempty).
      prepareForCreate: (object) => {
        object.status = { desiredReplicas: 0 };
      },
      validate: validateHpa,
      validateUpdate: validateHpa,
    },
  },
];
