import { authorizerVariable, type CelAuthorizer } from '@kapi/apiextensions';
import type { UserInfo } from '@kapi/filters';
import type { AdmissionAttributes } from './admission-matching.js';

/** A service account's user, as the token authenticator names it. */
function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

/**
 * What the `authorizer` CEL variable of a request's admission expressions asks: the server's authorizer,
 * for the request's user (or the service account `serviceAccount()` names); undefined without one.
 */
export function celAuthorizerOf(attributes: AdmissionAttributes): CelAuthorizer | undefined {
  const { authorizer } = attributes;
  if (!authorizer) return undefined;
  return (check) =>
    authorizer.authorize({
      user: check.serviceAccount ? serviceAccountUser(check.serviceAccount.namespace, check.serviceAccount.name) : attributes.user,
      verb: check.verb,
      isResourceRequest: check.path === undefined,
      path: check.path ?? '',
      namespace: check.namespace ?? '',
      apiGroup: check.group ?? '',
      apiVersion: '*',
      resource: check.resource ?? '',
      subresource: check.subresource ?? '',
      name: check.name ?? '',
    });
}

/** The `authorizer` variable: `authorizer.requestResource` is the request's own resource. */
export function authorizerOf(attributes: AdmissionAttributes) {
  return authorizerVariable({
    group: attributes.group,
    resource: attributes.resource,
    subresource: attributes.subresource,
    namespace: attributes.namespace,
    name: attributes.name,
  });
}
