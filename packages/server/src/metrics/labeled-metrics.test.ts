import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LabeledCounter, LabeledHistogram, MetricsRegistry } from './labeled-metrics.js';

describe('LabeledCounter and LabeledHistogram', () => {
  it.each([
    ['a prom-client Registry', () => new Registry()],
    ['a MetricsRegistry (its own text)', () => new MetricsRegistry()],
  ])('expose exactly what prom-client Counter and Histogram expose for the same observations, in %s', async (_, registry) => {
    const ours = registry();
    const reference = new Registry();
    const options = { name: 'x_seconds', help: 'X.', labelNames: ['verb', 'code'] as const, buckets: [0.1, 0.5, 1] };
    const histogram = new LabeledHistogram({ ...options, registers: [ours] });
    const referenceHistogram = new Histogram({ ...options, labelNames: [...options.labelNames], registers: [reference] });
    const counterOptions = { name: 'x_total', help: 'Count.', labelNames: ['verb'] as const };
    const counter = new LabeledCounter({ ...counterOptions, registers: [ours] });
    const referenceCounter = new Counter({ ...counterOptions, labelNames: [...counterOptions.labelNames], registers: [reference] });
    const observations: Array<[string, string, number]> = [
      ['GET', '200', 0.05],
      ['we"ird\\verb\n', '200', 0.2],
      ['GET', '200', 0.1],
      ['GET', '200', 0.7],
      ['GET', '404', 3],
      ['LIST', '200', 0.3],
    ];
    for (const [verb, code, value] of observations) {
      histogram.child({ verb, code }).observe(value);
      referenceHistogram.observe({ verb, code }, value);
      counter.child({ verb }).inc();
      counter.child({ verb }).inc(2);
      referenceCounter.inc({ verb });
      referenceCounter.inc({ verb }, 2);
    }
    const gauge = new Gauge({ name: 'x_gauge', help: 'A prom-client gauge beside them.', registers: [ours, reference] });
    gauge.set(3);
    expect(await ours.metrics()).toBe(await reference.metrics());
    expect(await ours.metrics()).toContain('x_seconds_bucket{le="0.5",verb="GET",code="200"} 2');
    if (ours instanceof MetricsRegistry) {
      // The histogram's text is its own render, not prom-client's formatting of get().
      expect(await ours.getMetricsAsString(histogram)).toBe(histogram.render());
    }
    histogram.reset();
    expect(await ours.metrics()).not.toContain('x_seconds_bucket');
  });
});
