import { labelSelectorFromObject, type KubeObject } from '@kapi/apimachinery';
import type { Authorizer, UserInfo } from '@kapi/filters';
import type { AdmissionWebhook } from './admission-registration.js';

/** What an admission webhook is asked about: one request's operation on one object. */
export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  group: string;
  /** The version of the objects sent (`object`, `oldObject`): the request's, or the one a rule matched. */
  version: string;
  /** The version of the request, when the objects were converted to another one (`requestKind`). */
  requestVersion?: string;
  /** The resource's served versions, preferred first (where matchPolicy Equivalent looks). */
  versions?: readonly string[];
  /** Converts an object of the resource to another served version. */
  convert?: (object: KubeObject, version: string) => Promise<KubeObject>;
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
  /** The server's authorizer (the `authorizer` variable of CEL expressions asks it). */
  authorizer?: Authorizer;
  dryRun: boolean;
  /** Adds a `Warning` header to the response. */
  warn?: (message: string) => void;
  /** Adds an annotation to the request's audit event. */
  annotate?: (key: string, value: string) => void;
}

const labelsOf = (object: KubeObject | undefined) => object?.metadata.labels ?? {};

/** One rule of a webhook or policy: operations, API groups, versions, resources and scope. */
export type RuleWithOperations = NonNullable<AdmissionWebhook['rules']>[number];

type Rules = { rules?: Array<RuleWithOperations & { resourceNames?: string[] }> | undefined; matchPolicy?: string | undefined };

/**
 * Whether one of `webhook`'s rules names the request at `version` (upstream's rule Matcher): operation,
 * API group, version, `resource` / `resource/subresource` with `*` wildcards, and scope.
 */
function rulesMatchAt(webhook: Rules, attributes: AdmissionAttributes, version: string): boolean {
  const has = (values: string[] | undefined, value: string) => (values ?? []).some((v) => v === '*' || v === value);
  return (webhook.rules ?? []).some((rule) => {
    if (!has(rule.operations, attributes.operation) || !has(rule.apiGroups, attributes.group)) return false;
    // A policy's NamedRuleWithOperations may name the objects.
    if (rule.resourceNames?.length && !rule.resourceNames.includes(attributes.name)) return false;
    if (!has(rule.apiVersions, version)) return false;
    const scope = rule.scope ?? '*';
    if (scope === 'Cluster' && attributes.namespaced) return false;
    if (scope === 'Namespaced' && !attributes.namespaced) return false;
    return (rule.resources ?? []).some((entry) => {
      const [resource = '', subresource = ''] = entry.split('/');
      return (resource === '*' || resource === attributes.resource) && (subresource === '*' || subresource === attributes.subresource);
    });
  });
}

/**
 * The version a webhook or policy is asked in, undefined when its rules do not match: the request's
 * version when a rule names it; else, under matchPolicy Equivalent (the default), the first other served
 * version of the resource a rule names (upstream sends the objects converted to it).
 */
export function matchedVersion(webhook: Rules, attributes: AdmissionAttributes): string | undefined {
  if (rulesMatchAt(webhook, attributes, attributes.version)) return attributes.version;
  if ((webhook.matchPolicy ?? 'Equivalent') !== 'Equivalent') return undefined;
  return attributes.versions?.find((version) => version !== attributes.version && rulesMatchAt(webhook, attributes, version));
}

/** Whether `webhook`'s rules match the request, at its version or (Equivalent) another. */
export function rulesMatch(webhook: Rules, attributes: AdmissionAttributes): boolean {
  return matchedVersion(webhook, attributes) !== undefined;
}

/**
 * The attributes as a webhook matched at `version` is asked: the objects converted to it, and
 * `requestVersion` the request's.
 */
export async function atVersion(attributes: AdmissionAttributes, version: string): Promise<AdmissionAttributes> {
  const { convert } = attributes;
  if (version === attributes.version || !convert) return attributes;
  const [object, oldObject] = await Promise.all([attributes.object, attributes.oldObject].map((o) => (o ? convert(o, version) : undefined)));
  return {
    ...attributes,
    version,
    requestVersion: attributes.requestVersion ?? attributes.version,
    ...(object ? { object } : {}),
    ...(oldObject ? { oldObject } : {}),
  };
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
