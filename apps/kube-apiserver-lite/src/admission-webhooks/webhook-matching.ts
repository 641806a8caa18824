import { labelSelectorFromObject, type KubeObject } from '@kapi/apimachinery';
import type { UserInfo } from '@kapi/filters';
import type { AdmissionWebhook } from '../resources/admission-registration.js';

/** What an admission webhook is asked about: one request's operation on one object. */
export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  group: string;
  /** The version of the objects sent (`object`, `oldObject`). */
  version: string;
  resource: string;
  /** '' or e.g. 'status'. */
  subresource: string;
  kind: string;
  namespaced: boolean;
  namespace: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  user?: UserInfo;
  dryRun: boolean;
  /** Adds a `Warning` header to the response. */
  warn?: (message: string) => void;
}

const labelsOf = (object: KubeObject | undefined) => object?.metadata.labels ?? {};

/** One rule of a webhook or policy: operations, API groups, versions, resources and scope. */
export type RuleWithOperations = NonNullable<AdmissionWebhook['rules']>[number];

/**
 * Whether one of `webhook`'s rules names the request (upstream's rule Matcher): operation, API group,
 * version (any version under matchPolicy Equivalent: the resource is the same whatever version it is
 * asked in), `resource` / `resource/subresource` with `*` wildcards, and scope.
 */
export function rulesMatch(
  webhook: { rules?: Array<RuleWithOperations & { resourceNames?: string[] }> | undefined; matchPolicy?: string | undefined },
  attributes: AdmissionAttributes,
): boolean {
  const equivalent = (webhook.matchPolicy ?? 'Equivalent') === 'Equivalent';
  const has = (values: string[] | undefined, value: string) => (values ?? []).some((v) => v === '*' || v === value);
  return (webhook.rules ?? []).some((rule) => {
    if (!has(rule.operations, attributes.operation) || !has(rule.apiGroups, attributes.group)) return false;
    // A policy's NamedRuleWithOperations may name the objects.
    if (rule.resourceNames?.length && !rule.resourceNames.includes(attributes.name)) return false;
    if (!equivalent && !has(rule.apiVersions, attributes.version)) return false;
    const scope = rule.scope ?? '*';
    if (scope === 'Cluster' && attributes.namespaced) return false;
    if (scope === 'Namespaced' && !attributes.namespaced) return false;
    return (rule.resources ?? []).some((entry) => {
      const [resource = '', subresource = ''] = entry.split('/');
      return (resource === '*' || resource === attributes.resource) && (subresource === '*' || subresource === attributes.subresource);
    });
  });
}

/** Whether the object's (or, on update and delete, the old object's) labels match `objectSelector`. */
export function objectSelectorMatches(webhook: Pick<AdmissionWebhook, 'objectSelector'>, attributes: AdmissionAttributes): boolean {
  const selector = labelSelectorFromObject(webhook.objectSelector ?? {});
  if (selector.empty()) return true;
  return [attributes.object, attributes.oldObject].some((object) => object !== undefined && selector.matches(labelsOf(object)));
}

/**
 * Whether `namespaceSelector` matches (upstream's namespace matcher): a cluster-scoped object other than
 * a Namespace always matches; a Namespace is matched on its own labels; any other object on its
 * namespace's labels (`namespaceLabels`, read only when the selector is not empty).
 */
export async function namespaceSelectorMatches(
  webhook: Pick<AdmissionWebhook, 'namespaceSelector'>,
  attributes: AdmissionAttributes,
  namespaceLabels: (namespace: string) => Promise<Record<string, string>>,
): Promise<boolean> {
  const selector = labelSelectorFromObject(webhook.namespaceSelector ?? {});
  if (selector.empty()) return true;
  if (attributes.group === '' && attributes.resource === 'namespaces')
    return selector.matches(labelsOf(attributes.object ?? attributes.oldObject));
  if (!attributes.namespaced) return true;
  return selector.matches(await namespaceLabels(attributes.namespace));
}
