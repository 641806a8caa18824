import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { requestContext, writeStatus, type Filter, type Handler } from './handler.js';
import {
  attributesFromRequest,
  forbiddenError,
  type AuthorizationAttributes,
  type AuthorizationDecision,
  type Authorizer,
} from './authorizer.js';

/** Options of {@link withAuthorization}. */
export interface AuthorizationOptions {
  authorizer: Authorizer;
}

/**
 * Authorizes each request from its RequestInfo and user (WithAuthorization): only `allow` passes;
 * anything else gets 403 Forbidden with Kubernetes' wording, and an authorizer error gets 500.
 * Needs withRequestInfo (and normally withAuthentication) in front of it.
 */
export function withAuthorization(options: AuthorizationOptions): Filter {
  const authorizer = options.authorizer;
  // No closure is made per request: an authorizer that answers at once goes straight on to the handler.
  return (next) => (request, response) => {
    const info = requestContext(request).requestInfo;
    if (!info) {
      writeStatus(response, StatusError.internal('no RequestInfo found in the context'));
      return;
    }
    const attributes = attributesFromRequest(info, requestContext(request).user);
    let result: AuthorizationDecision | Promise<AuthorizationDecision>;
    try {
      result = authorizer.authorize(attributes);
    } catch (error) {
      writeStatus(response, error);
      return;
    }
    if (!(result instanceof Promise)) return decided(request, response, next, attributes, result);
    return result.then(
      (decision) => decided(request, response, next, attributes, decision),
      (error: unknown) => {
        writeStatus(response, error);
      },
    );
  };
}

/** Records the decision for the audit event, then goes on to `next` (allowed) or answers 403. */
function decided(
  request: IncomingMessage,
  response: ServerResponse,
  next: Handler,
  attributes: AuthorizationAttributes,
  result: AuthorizationDecision,
): void | Promise<void> {
  requestContext(request).authorization = result;
  if (result.decision === 'allow') return next(request, response);
  writeStatus(response, forbiddenError(attributes, result.reason ?? ''));
}
