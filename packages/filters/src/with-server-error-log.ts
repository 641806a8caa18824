import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { afterHandling } from './completion.js';
import { requestContext, type Filter } from './handler.js';

/** Options of {@link withServerErrorLog}. */
export interface ServerErrorLogOptions {
  /** Where each line goes; default stderr. */
  write?: (line: string) => void;
}

/**
 * Logs every 5xx answer on the server side, one entry per request: method, path, user, status code and
 * the error message, plus the stack when the error was unexpected (anything but a deliberate
 * StatusError, or a StatusError made from such a cause). The client sees only its Status. Put it
 * outermost, so panics and timeouts answered by inner filters are logged too.
 */
export function withServerErrorLog(options: ServerErrorLogOptions = {}): Filter {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (request: IncomingMessage, response: ServerResponse): void => {
    if (response.statusCode >= 500) write(serverErrorLine(request, response));
  };
  // Not an async function: a handler that answers synchronously costs no promise here, and an
  // asynchronous one adds a step to the reaction the filters share (no promise or closure of its own).
  return (next) => (request, response) => {
    let work: void | Promise<void>;
    try {
      work = next(request, response);
    } catch (error) {
      log(request, response);
      throw error;
    }
    if (!work) {
      log(request, response);
      return;
    }
    return afterHandling(request, response, work, log);
  };
}

/** `E<time> "<METHOD> <path>" user="<name>" status=<code> error="<message>"` and the stack, if any. */
function serverErrorLine(request: IncomingMessage, response: ServerResponse): string {
  const context = requestContext(request);
  const error = context.error;
  const user = context.user?.name ?? '';
  // The code's standard text (HTTP/2 responses have no status message).
  let message = STATUS_CODES[response.statusCode] ?? '';
  let stack: string | undefined;
  if (StatusError.isInstance(error)) {
    message = error.status.message ?? message;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error) stack = cause.stack;
  } else if (error instanceof Error) {
    message = error.message;
    stack = error.stack;
  } else if (error !== undefined) {
    message = String(error);
  }
  const line =
    `E${new Date().toISOString()} "${request.method ?? ''} ${request.url ?? ''}" user=${JSON.stringify(user)} ` +
    `status=${response.statusCode} error=${JSON.stringify(message)}`;
  return stack ? `${line}\n${stack}` : line;
}
