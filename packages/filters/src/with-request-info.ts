import type { IncomingMessage } from 'node:http';
import { requestContext, requestTarget, writeStatus, type Filter, type RequestInfo } from './handler.js';
import { isLongRunningRequest, parseRequestInfo } from './request-info.js';

/** Options of {@link withRequestInfo}. */
export interface RequestInfoOptions {
  /** Decides which requests are long-running (default {@link isLongRunningRequest}: watches, proxy, exec, logs...). */
  longRunning?: (info: RequestInfo, request: IncomingMessage) => boolean;
}

/**
 * Parses the request path into `context.requestInfo` (see {@link parseRequestInfo}) and marks
 * long-running requests in `context.longRunning`. A path that cannot be parsed gets a 500.
 */
export function withRequestInfo(options: RequestInfoOptions = {}): Filter {
  const longRunning = options.longRunning ?? isLongRunningRequest;
  return (next) => (request, response) => {
    const context = requestContext(request, response);
    let info: RequestInfo;
    try {
      info = parseRequestInfo(request.method ?? 'GET', requestTarget(request));
    } catch (error) {
      writeStatus(response, error);
      return;
    }
    context.requestInfo = info;
    context.longRunning = longRunning(info, request);
    return next(request, response);
  };
}
