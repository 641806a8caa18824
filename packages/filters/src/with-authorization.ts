import { StatusError } from '@kapi/apimachinery';
import { requestContext, writeStatus, type Filter } from './handler.js';
import { attributesFromRequest, forbiddenError, type AuthorizationDecision, type Authorizer } from './authorizer.js';

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
  return (next) => (request, response) => {
    const context = requestContext(request);
    const info = context.requestInfo;
    if (!info) {
      writeStatus(response, StatusError.internal('no RequestInfo found in the context'));
      return;
    }
    const attributes = attributesFromRequest(info, context.user);
    const decide = (result: AuthorizationDecision) => {
      context.auditAnnotations['authorization.k8s.io/decision'] = result.decision === 'allow' ? 'allow' : 'forbid';
      context.auditAnnotations['authorization.k8s.io/reason'] = result.reason ?? '';
      if (result.decision === 'allow') return next(request, response);
      writeStatus(response, forbiddenError(attributes, result.reason ?? ''));
      return undefined;
    };
    const fail = (error: unknown) => {
      writeStatus(response, error);
    };
    let result: AuthorizationDecision | Promise<AuthorizationDecision>;
    try {
      result = authorizer.authorize(attributes);
    } catch (error) {
      fail(error);
      return;
    }
    // An answer at once goes straight on to the handler; only a promised one costs a tick.
    if (!(result instanceof Promise)) return decide(result);
    return result.then(decide, fail);
  };
}
