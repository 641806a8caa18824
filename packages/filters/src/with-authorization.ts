import { StatusError } from '@kapi/apimachinery';
import { requestContext, writeStatus, type Filter } from './handler.js';
import { attributesFromRequest, forbiddenError, type Authorizer } from './authorizer.js';

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
  return (next) => async (request, response) => {
    const context = requestContext(request);
    const info = context.requestInfo;
    if (!info) {
      writeStatus(response, StatusError.internal('no RequestInfo found in the context'));
      return;
    }
    const attributes = attributesFromRequest(info, context.user);
    let result;
    try {
      result = await authorizer.authorize(attributes);
    } catch (error) {
      writeStatus(response, error);
      return;
    }
    if (result.decision === 'allow') return next(request, response);
    writeStatus(response, forbiddenError(attributes, result.reason ?? ''));
  };
}
