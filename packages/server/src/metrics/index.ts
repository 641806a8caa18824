export { ServerMetrics, canonicalVerb, requestDurationBuckets, storageDurationBuckets } from './server-metrics.js';
export type { InFlightKind, ObservedRequest, RequestMetricLabels, ServerMetricsOptions } from './server-metrics.js';
