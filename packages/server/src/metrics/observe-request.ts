import type { IncomingMessage } from 'node:http';
import { requestContext, requestTarget } from '@kapi/filters';
import type { ServerMetrics } from './server-metrics.js';

/**
 * Records a finished resource request in `apiserver_request_total` and `apiserver_request_duration_seconds`
 * (a request the chain did not resolve to a resource is not counted, as upstream's instrumented routes).
 */
export function observeResourceRequest(metrics: ServerMetrics, request: IncomingMessage, statusCode: number): void {
  const context = requestContext(request);
  const info = context.requestInfo;
  if (!info?.isResourceRequest) return;
  metrics.observeRequest({
    verb: info.verb,
    group: info.apiGroup,
    version: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    scope: info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster',
    dryRun: dryRunLabel(request),
    code: statusCode,
    durationSeconds: (performance.now() - context.startedAt) / 1000,
  });
}

/**
 * The `dry_run` label of a request's metrics, as upstream's cleanDryRun: its `dryRun` values, sorted,
 * without repeats, comma-joined ('' for none). The URL is looked at first: most requests have none.
 */
function dryRunLabel(request: IncomingMessage): string {
  if (!request.url?.includes('dryRun')) return '';
  return [...new Set(requestTarget(request).query.getAll('dryRun'))].sort().join(',');
}
