import { describe, expect, it } from 'vitest';
import { parseOptions } from './options.js';

describe('aggregated-server parseOptions', () => {
  it('defaults the collector tuning to kube-apiserver-lite\'s (growth 100%) and checks it', () => {
    expect(parseOptions(['--kubeconfig=k']).gcHeapGrowthPercent).toBe(100);
    expect(parseOptions(['--kubeconfig=k', '--gc-heap-growth-percent=0']).gcHeapGrowthPercent).toBe(0);
    expect(() => parseOptions(['--kubeconfig=k', '--gc-heap-growth-percent=-5'])).toThrow('--gc-heap-growth-percent must be a non-negative whole number');
  });
});
