import { parseGroupVersion, type KubeObject } from '@kapi/apimachinery';
import type { RequestScope, ResourceDefinition } from '@kapi/server';
import type { ValidatingAdmissionPolicies } from './policy-admission.js';
import type { AdmissionWebhookDispatcher } from './webhook-dispatcher.js';
import type { AdmissionAttributes } from './admission-matching.js';

const operations = { create: 'CREATE', update: 'UPDATE', delete: 'DELETE' } as const;

/**
 * `definition` with admission webhooks in its strategy: the mutating ones in `mutate` (before
 * validation, on the object in the version the client sent), ValidatingAdmissionPolicies and the
 * validating webhooks after the resource's own admission in `admit` (on the object as it will be
 * stored, converted to the request's version). As upstream, the webhook configurations themselves are
 * never sent to webhooks (a broken webhook could otherwise not be removed).
 */
export function withAdmissionWebhooks(
  definition: ResourceDefinition,
  dispatcher: AdmissionWebhookDispatcher,
  policies?: ValidatingAdmissionPolicies,
): ResourceDefinition {
  if (definition.group === 'admissionregistration.k8s.io') return definition;
  const inner = definition.strategy;
  const attributes = (
    operation: keyof typeof operations,
    object: KubeObject | undefined,
    old: KubeObject | undefined,
    scope: RequestScope,
  ): AdmissionAttributes => ({
    operation: operations[operation],
    group: definition.group,
    version: scope.version ?? parseGroupVersion((object ?? old)?.apiVersion ?? '').version,
    versions: definition.versions,
    ...(scope.convert ? { convert: scope.convert } : {}),
    resource: definition.resource,
    subresource: scope.subresource,
    kind: definition.kind,
    namespaced: definition.namespaced,
    namespace: scope.namespace,
    name: scope.name,
    ...(object ? { object } : {}),
    ...(old ? { oldObject: old } : {}),
    ...(scope.user ? { user: scope.user } : {}),
    ...(scope.authorizer ? { authorizer: scope.authorizer } : {}),
    dryRun: scope.dryRun,
    ...(scope.warn ? { warn: scope.warn } : {}),
    ...(scope.annotate ? { annotate: scope.annotate } : {}),
  });
  return {
    ...definition,
    strategy: {
      ...inner,
      // Synchronous while no webhook is configured: a create pays no extra turn of the event loop.
      mutate(operation, object, old, scope) {
        const webhooks = (mutated: KubeObject) =>
          dispatcher.active ? dispatcher.mutate({ ...attributes(operation, mutated, old, scope), object: mutated }) : mutated;
        if (!inner?.mutate) return webhooks(object);
        const mutated = inner.mutate(operation, object, old, scope);
        return mutated instanceof Promise ? mutated.then(webhooks) : webhooks(mutated);
      },
      async admit(operation, object, old, scope) {
        await inner?.admit?.(operation, object, old, scope);
        if (!dispatcher.active && !policies?.active) return;
        // The hub objects, in the request's version (as upstream asks webhooks and policies).
        const versioned = (o: KubeObject | undefined) =>
          o && scope.version && scope.convert && parseGroupVersion(o.apiVersion ?? '').version !== scope.version ? scope.convert(o, scope.version) : o;
        const [asObject, asOld] = await Promise.all([
          versioned(operation === 'delete' ? undefined : object),
          versioned(operation === 'create' ? undefined : old),
        ]);
        const asked = attributes(operation, asObject, asOld, scope);
        // Upstream's order: ValidatingAdmissionPolicy, then ValidatingAdmissionWebhook.
        if (policies?.active) await policies.validate(asked);
        if (dispatcher.active) await dispatcher.validate(asked);
      },
    },
  };
}
