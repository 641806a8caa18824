import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterHandling, type CompletionStep } from '@kapi/filters';
import { writeError } from './response-writer.js';

/**
 * Resolves once the response is answered. A platform handler (health checks) may answer after it
 * returned: the filters around it (the 5xx log, metrics, the in-flight count) wait for the answer.
 */
export function answered(response: ServerResponse): void | Promise<void> {
  if (response.writableEnded || response.destroyed) return;
  return new Promise<void>((resolve) => {
    response.once('finish', resolve);
    response.once('close', resolve);
  });
}

/** A REST handler's failure, answered (or the response it had begun cut). */
const answerFailure: CompletionStep = (request, response, outcome) => {
  if (!outcome.failed) return;
  const error = outcome.error;
  outcome.failed = false;
  outcome.error = undefined;
  if (!response.headersSent) writeError(request, response, error);
  else response.end();
};

/**
 * Writes what a REST handler failed with (or cuts a response it had begun); the handlers are async. A
 * step of the reaction the filters around share (see `afterHandling`).
 */
export function answerFailures(request: IncomingMessage, response: ServerResponse, work: Promise<void>): Promise<void> {
  return afterHandling(request, response, work, answerFailure);
}
