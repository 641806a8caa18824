import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import { hpaAnnotations, hpaV1ToV2, hpaV2ToV1 } from './autoscaling.js';

const v1: KubeObject = {
  apiVersion: 'autoscaling/v1',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 },
  status: { currentReplicas: 3, desiredReplicas: 4, currentCPUUtilizationPercentage: 65 },
};

const v2: KubeObject = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'api', namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 300 } },
  },
  status: {
    currentReplicas: 1,
    desiredReplicas: 1,
    currentMetrics: [
      { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40 } } },
      { type: 'Resource', resource: { name: 'memory', current: { averageValue: '300Mi' } } },
    ],
    conditions: [{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  },
};

describe('HorizontalPodAutoscaler conversion', () => {
  it('maps v1 targetCPUUtilizationPercentage to a v2 Resource cpu Utilization metric', () => {
    const hub = hpaV1ToV2(v1);
    expect(hub.apiVersion).toBe('autoscaling/v2');
    expect((hub.spec as { metrics: unknown[] }).metrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
    ]);
    expect((hub.status as { currentMetrics: unknown[] }).currentMetrics).toEqual([
      { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 65 } } },
    ]);
    expect(hub.spec).not.toHaveProperty('targetCPUUtilizationPercentage');
  });

  it('round-trips v1 -> v2 -> v1 losslessly', () => {
    expect(hpaV2ToV1(hpaV1ToV2(v1))).toEqual(v1);
  });

  it('round-trips v2 -> v1 -> v2 losslessly, carrying v2-only fields in annotations', () => {
    const down = hpaV2ToV1(v2);
    expect((down.spec as { targetCPUUtilizationPercentage: number }).targetCPUUtilizationPercentage).toBe(50);
    expect(Object.keys(down.metadata.annotations ?? {}).sort()).toEqual(
      [hpaAnnotations.behavior, hpaAnnotations.conditions, hpaAnnotations.currentMetrics, hpaAnnotations.metrics].sort(),
    );
    expect(hpaV1ToV2(down)).toEqual(v2);
  });

  it('does not mutate its input', () => {
    const copy = structuredClone(v2);
    hpaV2ToV1(v2);
    hpaV1ToV2(hpaV2ToV1(v2));
    expect(v2).toEqual(copy);
  });
});
