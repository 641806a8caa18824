import type { IncomingMessage, ServerResponse } from 'node:http';
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

/** Writes what a REST handler failed with (or cuts a response it had begun); the handlers are async. */
export function answerFailures(request: IncomingMessage, response: ServerResponse, work: Promise<void>): Promise<void> {
  return work.then(undefined, (error: unknown) => {
    if (!response.headersSent) writeError(request, response, error);
    else response.end();
  });
}
