import { Type, isDNS1123Subdomain, isQualifiedName, kindSchema, nameIsDNSSubdomain, type FieldError, type KindDefinition, type KubeObject, withFieldDescriptions, labelSelectorSchema } from '@kapi/apimachinery';
import { compileAdmissionExpression } from '@kapi/apiextensions';
import type { ResourceDefinition } from '@kapi/server';
import {
  mutatingWebhookConfigurationDescriptions,
  validatingWebhookConfigurationDescriptions,
} from './admission-registration-descriptions.js';

// admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration and MutatingWebhookConfiguration:
// upstream's schema, v1 defaults and validation. The dispatcher that calls them is admission-webhooks/.

const group = 'admissionregistration.k8s.io';
const version = 'v1';
const strings = () => Type.Optional(Type.Array(Type.String()));

/** RuleWithOperations. */
export const ruleSchema = Type.Object({
  operations: strings(),
  apiGroups: strings(),
  apiVersions: strings(),
  resources: strings(),
  scope: Type.Optional(Type.String({ default: '*' })),
});

const clientConfigSchema = Type.Object({
  url: Type.Optional(Type.String()),
  service: Type.Optional(
    Type.Object({
      namespace: Type.String(),
      name: Type.String(),
      path: Type.Optional(Type.String()),
      port: Type.Optional(Type.Integer({ format: 'int32', default: 443 })),
    }),
  ),
  caBundle: Type.Optional(Type.String({ format: 'byte' })),
});

const webhookProperties = {
  name: Type.String(),
  clientConfig: clientConfigSchema,
  rules: Type.Optional(Type.Array(ruleSchema, { 'x-kubernetes-list-type': 'atomic' })),
  failurePolicy: Type.Optional(Type.String({ default: 'Fail' })),
  matchPolicy: Type.Optional(Type.String({ default: 'Equivalent' })),
  // Upstream's defaults: the empty selector (everything).
  namespaceSelector: Type.Optional({ ...labelSelectorSchema, default: {} }),
  objectSelector: Type.Optional({ ...labelSelectorSchema, default: {} }),
  sideEffects: Type.Optional(Type.String()),
  timeoutSeconds: Type.Optional(Type.Integer({ format: 'int32', default: 10 })),
  admissionReviewVersions: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'atomic' })),
  matchConditions: Type.Optional(
    Type.Array(Type.Object({ name: Type.String(), expression: Type.String() }), {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
  ),
};

const webhooks = (mutating: boolean) =>
  Type.Optional(
    Type.Array(
      Type.Object(
        mutating
          ? { ...webhookProperties, reinvocationPolicy: Type.Optional(Type.String({ default: 'Never' })) }
          : webhookProperties,
      ),
      { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] },
    ),
  );

const kinds = { validating: 'ValidatingWebhookConfiguration', mutating: 'MutatingWebhookConfiguration' };

/** The two kinds, admissionregistration.k8s.io/v1. */
export const admissionRegistrationKinds: KindDefinition[] = [false, true].map((mutating) => {
  const kind = mutating ? kinds.mutating : kinds.validating;
  return {
    group,
    version,
    kind,
    schema: withFieldDescriptions(
      kindSchema({
        group,
        version,
        kind,
        // Upstream's descriptions, verbatim (typos included).
        description: mutating
          ? 'MutatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and may change the object.'
          : 'ValidatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and object without changing it.',
        properties: { webhooks: webhooks(mutating) },
      }),
      mutating ? mutatingWebhookConfigurationDescriptions : validatingWebhookConfigurationDescriptions,
    ),
  };
});

/** One webhook of either kind, as stored (defaults applied). */
export interface AdmissionWebhook {
  name: string;
  clientConfig: { url?: string; service?: { namespace: string; name: string; path?: string; port?: number }; caBundle?: string };
  rules?: Array<{ operations?: string[]; apiGroups?: string[]; apiVersions?: string[]; resources?: string[]; scope?: string }>;
  failurePolicy?: string;
  matchPolicy?: string;
  namespaceSelector?: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
  objectSelector?: AdmissionWebhook['namespaceSelector'];
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: Array<{ name: string; expression: string }>;
  reinvocationPolicy?: string;
}

/** The webhooks of a configuration object. */
export const webhooksOf = (object: KubeObject) => ((object['webhooks'] ?? []) as AdmissionWebhook[]);

const supported = (values: string[]) => `supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`;

function notSupported(errors: FieldError[], field: string, value: string | undefined, values: string[]): void {
  if (value !== undefined && !values.includes(value))
    errors.push({ field, type: 'FieldValueNotSupported', value, detail: supported(values) });
}

function validateClientConfig(config: AdmissionWebhook['clientConfig'] | undefined, path: string, errors: FieldError[]): void {
  const url = config?.url;
  const service = config?.service;
  if ((url === undefined) === (service === undefined)) {
    errors.push({ field: path, type: 'FieldValueRequired', detail: 'exactly one of url or service is required' });
    return;
  }
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      errors.push({ field: `${path}.url`, type: 'FieldValueInvalid', value: url, detail: 'host must be specified' });
      return;
    }
    if (parsed.protocol !== 'https:')
      errors.push({ field: `${path}.url`, type: 'FieldValueInvalid', value: url, detail: "'https' is the only allowed URL scheme" });
    if (parsed.username || parsed.password)
      errors.push({ field: `${path}.url`, type: 'FieldValueInvalid', value: url, detail: 'user information is not permitted in the URL' });
    if (parsed.hash)
      errors.push({ field: `${path}.url`, type: 'FieldValueInvalid', value: url, detail: 'fragments are not permitted in the URL' });
    if (parsed.search)
      errors.push({ field: `${path}.url`, type: 'FieldValueInvalid', value: url, detail: 'query parameters are not permitted in the URL' });
  }
  if (service !== undefined) {
    if (!service.name) errors.push({ field: `${path}.service.name`, type: 'FieldValueRequired', detail: 'service name is required' });
    if (!service.namespace)
      errors.push({ field: `${path}.service.namespace`, type: 'FieldValueRequired', detail: 'service namespace is required' });
    const port = service.port ?? 443;
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      errors.push({ field: `${path}.service.port`, type: 'FieldValueInvalid', value: port, detail: 'port is not valid: must be between 1 and 65535, inclusive' });
  }
}

/** Upstream's validation of RuleWithOperations entries. */
export function validateRules(rules: AdmissionWebhook['rules'], path: string, errors: FieldError[]): void {
  (rules ?? []).forEach((rule, index) => {
    const at = `${path}[${index}]`;
    for (const [field, values] of [
      ['operations', rule.operations],
      ['apiGroups', rule.apiGroups],
      ['apiVersions', rule.apiVersions],
      ['resources', rule.resources],
    ] as const)
      if (!values?.length) errors.push({ field: `${at}.${field}`, type: 'FieldValueRequired', detail: '' });
    (rule.operations ?? []).forEach((operation, i) =>
      notSupported(errors, `${at}.operations[${i}]`, operation, ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE']),
    );
    notSupported(errors, `${at}.scope`, rule.scope, ['*', 'Cluster', 'Namespaced']);
    for (const resource of rule.resources ?? []) {
      if (resource === '') errors.push({ field: `${at}.resources`, type: 'FieldValueRequired', detail: 'resource must be non-empty' });
      else if (resource.split('/').length > 2)
        errors.push({ field: `${at}.resources`, type: 'FieldValueInvalid', value: resource, detail: "resource must be in the form of 'resource' or 'resource/subresource'" });
    }
  });
}

/** Upstream's limit on a webhook's (or a policy's) match conditions. */
const maxMatchConditions = 64;

/** Upstream's validation of matchConditions: qualified, unique names; expressions that compile. */
export function validateMatchConditions(
  conditions: AdmissionWebhook['matchConditions'],
  path: string,
  errors: FieldError[],
  policy = false,
): void {
  if (!conditions) return;
  if (conditions.length > maxMatchConditions)
    errors.push({ field: path, type: 'FieldValueTooMany', value: conditions.length, detail: `must have at most ${maxMatchConditions} items` });
  const names = new Set<string>();
  conditions.forEach((condition, index) => {
    const at = `${path}[${index}]`;
    if (!condition.name) errors.push({ field: `${at}.name`, type: 'FieldValueRequired', detail: '' });
    else {
      for (const detail of isQualifiedName(condition.name))
        errors.push({ field: `${at}.name`, type: 'FieldValueInvalid', value: condition.name, detail });
      if (names.has(condition.name)) errors.push({ field: `${at}.name`, type: 'FieldValueDuplicate', value: condition.name, detail: '' });
      names.add(condition.name);
    }
    if (!condition.expression?.trim()) {
      errors.push({ field: `${at}.expression`, type: 'FieldValueRequired', detail: '' });
      return;
    }
    const compiled = compileAdmissionExpression(condition.expression, policy);
    if ('error' in compiled)
      errors.push({ field: `${at}.expression`, type: 'FieldValueInvalid', value: condition.expression, detail: compiled.error });
  });
}

/** Upstream's ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration (v1 rules). */
export function validateWebhookConfiguration(object: KubeObject, mutating: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  webhooksOf(object).forEach((hook, index) => {
    const path = `webhooks[${index}]`;
    const name = hook.name ?? '';
    if (!name) errors.push({ field: `${path}.name`, type: 'FieldValueRequired', detail: '' });
    else {
      for (const detail of isDNS1123Subdomain(name)) errors.push({ field: `${path}.name`, type: 'FieldValueInvalid', value: name, detail });
      if (name.split('.').length < 3)
        errors.push({ field: `${path}.name`, type: 'FieldValueInvalid', value: name, detail: 'should be a domain with at least three segments separated by dots' });
      if (names.has(name)) errors.push({ field: `${path}.name`, type: 'FieldValueDuplicate', value: name, detail: '' });
      names.add(name);
    }
    validateRules(hook.rules, `${path}.rules`, errors);
    notSupported(errors, `${path}.failurePolicy`, hook.failurePolicy, ['Fail', 'Ignore']);
    notSupported(errors, `${path}.matchPolicy`, hook.matchPolicy, ['Equivalent', 'Exact']);
    if (hook.sideEffects === undefined) errors.push({ field: `${path}.sideEffects`, type: 'FieldValueRequired', detail: '' });
    else notSupported(errors, `${path}.sideEffects`, hook.sideEffects, ['None', 'NoneOnDryRun']);
    const timeout = hook.timeoutSeconds;
    if (timeout !== undefined && (timeout < 1 || timeout > 30))
      errors.push({ field: `${path}.timeoutSeconds`, type: 'FieldValueInvalid', value: timeout, detail: 'the timeout value must be between 1 and 30 seconds' });
    const versions = hook.admissionReviewVersions ?? [];
    if (versions.length === 0)
      errors.push({ field: `${path}.admissionReviewVersions`, type: 'FieldValueRequired', detail: 'must specify one of v1, v1beta1' });
    else if (!versions.some((v) => v === 'v1' || v === 'v1beta1'))
      errors.push({ field: `${path}.admissionReviewVersions`, type: 'FieldValueInvalid', value: versions, detail: 'must include at least one of v1, v1beta1' });
    if (mutating) notSupported(errors, `${path}.reinvocationPolicy`, hook.reinvocationPolicy, ['IfNeeded', 'Never']);
    validateMatchConditions(hook.matchConditions, `${path}.matchConditions`, errors);
    validateClientConfig(hook.clientConfig, `${path}.clientConfig`, errors);
  });
  return errors;
}

const webhookCount = (object: KubeObject) => String(webhooksOf(object).length);

/** Cluster-scoped storage of both kinds (cluster-admin only, as upstream: no aggregated role grants them). */
export const admissionRegistrationResources: ResourceDefinition[] = [false, true].map((mutating) => ({
  group,
  resource: mutating ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations',
  kind: mutating ? kinds.mutating : kinds.validating,
  namespaced: false,
  versions: [version],
  categories: ['api-extensions'],
  nameValidator: nameIsDNSSubdomain,
  printerColumns: [
    { name: 'Webhooks', type: 'integer', jsonPath: '.webhooks', cell: webhookCount },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  strategy: {
    validate: (object) => validateWebhookConfiguration(object, mutating),
    validateUpdate: (object) => validateWebhookConfiguration(object, mutating),
  },
}));
