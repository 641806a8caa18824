import { Counter, Histogram, type Registry } from 'prom-client';

/** One webhook call as the metrics see it. */
export interface WebhookCall {
  name: string;
  /** Upstream's `type` label: `admit` (mutating) or `validating`. */
  type: 'admit' | 'validating';
  operation: string;
  seconds: number;
  /** The webhook's HTTP status (0 when it could not be called). */
  code: number;
  outcome: 'allowed' | 'denied' | 'failed-closed' | 'failed-open';
  /** The status code of a denial (or 0). */
  rejectionCode: number;
}

/** Records webhook calls. */
export type WebhookCallObserver = (call: WebhookCall) => void;

/**
 * Upstream's admission webhook metrics: `apiserver_admission_webhook_admission_duration_seconds`,
 * `_request_total`, `_rejection_count` and `_fail_open_count`, with its labels.
 */
export function webhookMetrics(registry: Registry): WebhookCallObserver {
  const registers = [registry];
  const duration = new Histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 25],
    registers,
  });
  const requests = new Counter({
    name: 'apiserver_admission_webhook_request_total',
    help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
    registers,
  });
  const rejections = new Counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
    registers,
  });
  const failOpen = new Counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
    labelNames: ['name', 'type'],
    registers,
  });
  return (call) => {
    const { name, type, operation } = call;
    const rejected = call.outcome === 'denied' || call.outcome === 'failed-closed' ? 'true' : 'false';
    duration.observe({ name, type, operation, rejected }, call.seconds);
    requests.inc({ name, type, operation, code: String(Math.min(call.code, 600)), rejected });
    if (call.outcome === 'failed-open') failOpen.inc({ name, type });
    if (rejected === 'true')
      rejections.inc({
        name,
        type,
        operation,
        error_type: call.outcome === 'denied' ? 'no_error' : 'calling_webhook_error',
        rejection_code: String(Math.min(call.rejectionCode, 600)),
      });
  };
}
