import { StatusError } from '@kapi/apimachinery';
import type { IncomingMessage } from 'node:http';
import { afterHandling } from './completion.js';
import { requestContext, writeStatus, type Filter } from './handler.js';

/** Options of {@link withMaxInFlight}. A limit of 0 means no limit. */
export interface MaxInFlightOptions {
  /** Concurrent non-mutating requests (get, list, non-resource reads); default 400. */
  maxRequestsInFlight?: number;
  /** Concurrent mutating requests; default 200. */
  maxMutatingRequestsInFlight?: number;
  /** Groups whose members bypass the limits when the user is already known; default `system:masters`. */
  exemptGroups?: readonly string[];
}

/** Requests currently being served, by kind. */
export interface InFlightCounts {
  readOnly: number;
  mutating: number;
}

/** The max-in-flight filter, which also reports its current counts (for /metrics). */
export interface MaxInFlightFilter extends Filter {
  inFlight(): InFlightCounts;
}

/** Verbs that do not mutate (everything else does, as upstream's nonMutatingRequestVerbs). */
const nonMutatingVerbs = new Set(['get', 'list', 'watch']);

/** Health probes, never queued behind API requests (upstream's exempt `probes` FlowSchema). */
const probePaths = ['/healthz', '/livez', '/readyz'];

function isProbe(path: string): boolean {
  return probePaths.some((probe) => path === probe || path.startsWith(`${probe}/`));
}

/** The text and Retry-After of upstream's tooManyRequests. */
export const tooManyRequestsMessage = 'Too many requests, please try again later.';

/**
 * Limits concurrent requests (k8s.io/apiserver WithMaxInFlightLimit): read-only and mutating
 * requests have separate budgets; over budget the request gets 429 TooManyRequests with
 * `Retry-After: 1`. Long-running requests, health probes (`/healthz`, `/livez`, `/readyz`) and members
 * of `exemptGroups` are exempt. Needs withRequestInfo in front of it, and withAuthentication for the
 * group exemption (upstream places it after authentication, just before authorization).
 */
export function withMaxInFlight(options: MaxInFlightOptions = {}): MaxInFlightFilter {
  const readOnlyLimit = options.maxRequestsInFlight ?? 400;
  const mutatingLimit = options.maxMutatingRequestsInFlight ?? 200;
  const exemptGroups = new Set(options.exemptGroups ?? ['system:masters']);
  const counts: InFlightCounts = { readOnly: 0, mutating: 0 };

  const kindOf = (verb: string): keyof InFlightCounts => (nonMutatingVerbs.has(verb) ? 'readOnly' : 'mutating');
  // The end of a counted request's handling (a step of the reaction the filters share).
  const release = (request: IncomingMessage): void => {
    counts[kindOf(requestContext(request).requestInfo?.verb ?? '')] -= 1;
  };

  const filter: Filter = (next) => {
    if (readOnlyLimit === 0 && mutatingLimit === 0) return next;
    // Not an async function: exempt requests pass through at no cost.
    return (request, response) => {
      const context = requestContext(request);
      const info = context.requestInfo;
      if (!info) {
        writeStatus(response, StatusError.internal('no RequestInfo found in the context'));
        return;
      }
      if (context.longRunning) return next(request, response);
      if (!info.isResourceRequest && isProbe(info.path)) return next(request, response);
      if (context.user?.groups.some((group) => exemptGroups.has(group))) return next(request, response);

      const kind = kindOf(info.verb);
      const limit = kind === 'readOnly' ? readOnlyLimit : mutatingLimit;
      if (limit > 0 && counts[kind] >= limit) {
        writeStatus(response, StatusError.tooManyRequests(tooManyRequestsMessage, 1));
        return;
      }
      counts[kind] += 1;
      let work: void | Promise<void>;
      try {
        work = next(request, response);
      } catch (error) {
        counts[kind] -= 1;
        throw error;
      }
      if (!work) {
        counts[kind] -= 1;
        return;
      }
      return afterHandling(request, response, work, release);
    };
  };
  return Object.assign(filter, { inFlight: (): InFlightCounts => ({ ...counts }) });
}
