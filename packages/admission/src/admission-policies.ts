import { Type, kindSchema, isQualifiedName, nameIsDNSSubdomain, type FieldError, type KindDefinition, type KubeObject, withFieldDescriptions, labelSelectorSchema } from '@kapi/apimachinery';
import { compileAdmissionExpression } from '@kapi/apiextensions';
import type { ResourceDefinition } from '@kapi/server';
import {
  validatingAdmissionPolicyBindingDescriptions,
  validatingAdmissionPolicyDescriptions,
} from './admission-policies-descriptions.js';
import { ruleSchema, validateMatchConditions, validateRules } from './admission-registration.js';

// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding: CEL
// validations the server runs itself (admission-webhooks/policy-admission.ts), with parameters read
// through the loopback client.

const group = 'admissionregistration.k8s.io';
const version = 'v1';

const namedRuleSchema = Type.Object({
  ...ruleSchema.properties,
  resourceNames: Type.Optional(Type.Array(Type.String())),
});

const matchResourcesSchema = Type.Object({
  namespaceSelector: Type.Optional(labelSelectorSchema),
  objectSelector: Type.Optional(labelSelectorSchema),
  resourceRules: Type.Optional(Type.Array(namedRuleSchema, { 'x-kubernetes-list-type': 'atomic' })),
  excludeResourceRules: Type.Optional(Type.Array(namedRuleSchema, { 'x-kubernetes-list-type': 'atomic' })),
  matchPolicy: Type.Optional(Type.String({ default: 'Equivalent' })),
});

const policySchema = withFieldDescriptions(
  kindSchema({
    group,
    version,
    kind: 'ValidatingAdmissionPolicy',
    description:
      'ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.',
    spec: Type.Object({
      paramKind: Type.Optional(Type.Object({ apiVersion: Type.Optional(Type.String()), kind: Type.Optional(Type.String()) })),
      matchConstraints: Type.Optional(matchResourcesSchema),
      validations: Type.Optional(
        Type.Array(
          Type.Object({
            expression: Type.String(),
            message: Type.Optional(Type.String()),
            reason: Type.Optional(Type.String()),
            messageExpression: Type.Optional(Type.String()),
          }),
          { 'x-kubernetes-list-type': 'atomic' },
        ),
      ),
      failurePolicy: Type.Optional(Type.String({ default: 'Fail' })),
      auditAnnotations: Type.Optional(
        Type.Array(Type.Object({ key: Type.String(), valueExpression: Type.String() }), { 'x-kubernetes-list-type': 'atomic' }),
      ),
      matchConditions: Type.Optional(
        Type.Array(Type.Object({ name: Type.String(), expression: Type.String() }), {
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
        }),
      ),
      variables: Type.Optional(
        Type.Array(Type.Object({ name: Type.String(), expression: Type.String() }), { 'x-kubernetes-list-type': 'atomic' }),
      ),
    }),
    status: Type.Object({
      observedGeneration: Type.Optional(Type.Integer({ format: 'int64' })),
      conditions: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
    }),
  }),
  validatingAdmissionPolicyDescriptions,
);

const bindingSchema = withFieldDescriptions(
  kindSchema({
    group,
    version,
    kind: 'ValidatingAdmissionPolicyBinding',
    description:
      'ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources. ValidatingAdmissionPolicyBinding and parameter CRDs together define how cluster administrators configure policies for clusters.',
    spec: Type.Object({
      policyName: Type.Optional(Type.String()),
      paramRef: Type.Optional(
        Type.Object({
          name: Type.Optional(Type.String()),
          namespace: Type.Optional(Type.String()),
          selector: Type.Optional(labelSelectorSchema),
          parameterNotFoundAction: Type.Optional(Type.String()),
        }),
      ),
      matchResources: Type.Optional(matchResourcesSchema),
      validationActions: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' })),
    }),
  }),
  validatingAdmissionPolicyBindingDescriptions,
);

/** The two kinds. */
export const admissionPolicyKinds: KindDefinition[] = [
  { group, version, kind: 'ValidatingAdmissionPolicy', schema: policySchema },
  { group, version, kind: 'ValidatingAdmissionPolicyBinding', schema: bindingSchema },
];

/** A policy rule: RuleWithOperations plus resourceNames. */
export interface NamedRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
  resourceNames?: string[];
}

/** MatchResources of a policy or binding. */
export interface MatchResources {
  namespaceSelector?: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };
  objectSelector?: MatchResources['namespaceSelector'];
  resourceRules?: NamedRule[];
  excludeResourceRules?: NamedRule[];
  matchPolicy?: string;
}

/** A ValidatingAdmissionPolicy's spec, as stored. */
export interface PolicySpec {
  paramKind?: { apiVersion?: string; kind?: string };
  matchConstraints?: MatchResources;
  validations?: Array<{ expression: string; message?: string; reason?: string; messageExpression?: string }>;
  failurePolicy?: string;
  matchConditions?: Array<{ name: string; expression: string }>;
  variables?: Array<{ name: string; expression: string }>;
  auditAnnotations?: Array<{ key: string; valueExpression: string }>;
}

/** Where a binding's parameters are: one object by name, or those a selector picks; in `namespace` (else the request's). */
export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: MatchResources['namespaceSelector'];
  parameterNotFoundAction?: string;
}

/** A ValidatingAdmissionPolicyBinding's spec, as stored. */
export interface BindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: string[];
}

/** The spec of a ValidatingAdmissionPolicy. */
export const policySpecOf = (object: KubeObject) => (object['spec'] ?? {}) as PolicySpec;
/** The spec of a ValidatingAdmissionPolicyBinding. */
export const bindingSpecOf = (object: KubeObject) => (object['spec'] ?? {}) as BindingSpec;

const supported = (values: string[]) => `supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`;
const reasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];

function validateExpression(expression: string | undefined, field: string, errors: FieldError[]): void {
  if (!expression?.trim()) {
    errors.push({ field, type: 'FieldValueRequired', detail: '' });
    return;
  }
  const compiled = compileAdmissionExpression(expression, true);
  if ('error' in compiled) errors.push({ field, type: 'FieldValueInvalid', value: expression, detail: compiled.error });
}

function validateMatchResources(match: MatchResources | undefined, path: string, errors: FieldError[], required: boolean): void {
  if (required && !match?.resourceRules?.length) errors.push({ field: `${path}.resourceRules`, type: 'FieldValueRequired', detail: '' });
  validateRules(match?.resourceRules, `${path}.resourceRules`, errors);
  validateRules(match?.excludeResourceRules, `${path}.excludeResourceRules`, errors);
  const policy = match?.matchPolicy;
  if (policy !== undefined && policy !== 'Equivalent' && policy !== 'Exact')
    errors.push({ field: `${path}.matchPolicy`, type: 'FieldValueNotSupported', value: policy, detail: supported(['Equivalent', 'Exact']) });
}

/** Upstream's ValidateValidatingAdmissionPolicy, and what this server does not evaluate refused. */
export function validatePolicy(object: KubeObject): FieldError[] {
  const spec = policySpecOf(object);
  const errors: FieldError[] = [];
  if (spec.paramKind !== undefined) {
    if (!spec.paramKind.apiVersion) errors.push({ field: 'spec.paramKind.apiVersion', type: 'FieldValueRequired', detail: '' });
    if (!spec.paramKind.kind) errors.push({ field: 'spec.paramKind.kind', type: 'FieldValueRequired', detail: '' });
  }
  const variableNames = new Set<string>();
  (spec.variables ?? []).forEach((variable, index) => {
    const path = `spec.variables[${index}]`;
    if (!variable.name) errors.push({ field: `${path}.name`, type: 'FieldValueRequired', detail: '' });
    else if (!/^[_a-zA-Z][_a-zA-Z0-9]*$/.test(variable.name))
      errors.push({ field: `${path}.name`, type: 'FieldValueInvalid', value: variable.name, detail: 'name is not a valid CEL identifier' });
    else if (variableNames.has(variable.name)) errors.push({ field: `${path}.name`, type: 'FieldValueDuplicate', value: variable.name, detail: '' });
    variableNames.add(variable.name);
    validateExpression(variable.expression, `${path}.expression`, errors);
  });
  validateMatchResources(spec.matchConstraints, 'spec.matchConstraints', errors, true);
  if (!spec.validations?.length && !spec.auditAnnotations?.length)
    errors.push({ field: 'spec.validations', type: 'FieldValueRequired', detail: 'validations or auditAnnotations must contain at least one item' });
  const keys = new Set<string>();
  (spec.auditAnnotations ?? []).forEach((annotation, index) => {
    const path = `spec.auditAnnotations[${index}]`;
    if (!annotation.key) errors.push({ field: `${path}.key`, type: 'FieldValueRequired', detail: '' });
    else {
      const problems = isQualifiedName(`${object.metadata.name ?? ''}/${annotation.key}`.toLowerCase());
      if (problems.length) errors.push({ field: `${path}.key`, type: 'FieldValueInvalid', value: annotation.key, detail: problems.join('; ') });
      if (keys.has(annotation.key)) errors.push({ field: `${path}.key`, type: 'FieldValueDuplicate', value: annotation.key, detail: '' });
      keys.add(annotation.key);
    }
    validateExpression(annotation.valueExpression, `${path}.valueExpression`, errors);
  });
  (spec.validations ?? []).forEach((validation, index) => {
    const path = `spec.validations[${index}]`;
    validateExpression(validation.expression, `${path}.expression`, errors);
    if (validation.messageExpression !== undefined) validateExpression(validation.messageExpression, `${path}.messageExpression`, errors);
    if (validation.reason !== undefined && !reasons.includes(validation.reason))
      errors.push({ field: `${path}.reason`, type: 'FieldValueNotSupported', value: validation.reason, detail: supported(reasons) });
  });
  const failurePolicy = spec.failurePolicy;
  if (failurePolicy !== undefined && failurePolicy !== 'Fail' && failurePolicy !== 'Ignore')
    errors.push({ field: 'spec.failurePolicy', type: 'FieldValueNotSupported', value: failurePolicy, detail: supported(['Fail', 'Ignore']) });
  validateMatchConditions(spec.matchConditions, 'spec.matchConditions', errors, true);
  return errors;
}

/** Upstream's ValidateValidatingAdmissionPolicyBinding. */
export function validateBinding(object: KubeObject): FieldError[] {
  const spec = bindingSpecOf(object);
  const errors: FieldError[] = [];
  if (!spec.policyName) errors.push({ field: 'spec.policyName', type: 'FieldValueRequired', detail: '' });
  const ref = spec.paramRef;
  if (ref !== undefined) {
    if ((ref.name === undefined || ref.name === '') === (ref.selector === undefined))
      errors.push({ field: 'spec.paramRef', type: 'FieldValueForbidden', detail: 'one of `name` or `selector` must be set' });
    if (ref.parameterNotFoundAction === undefined)
      errors.push({ field: 'spec.paramRef.parameterNotFoundAction', type: 'FieldValueRequired', detail: '' });
    else if (ref.parameterNotFoundAction !== 'Allow' && ref.parameterNotFoundAction !== 'Deny')
      errors.push({ field: 'spec.paramRef.parameterNotFoundAction', type: 'FieldValueNotSupported', value: ref.parameterNotFoundAction, detail: supported(['Allow', 'Deny']) });
  }
  const actions = spec.validationActions ?? [];
  if (actions.length === 0) errors.push({ field: 'spec.validationActions', type: 'FieldValueRequired', detail: 'at least one validation action is required' });
  const seen = new Set<string>();
  actions.forEach((action, index) => {
    if (!['Audit', 'Deny', 'Warn'].includes(action))
      errors.push({ field: `spec.validationActions[${index}]`, type: 'FieldValueNotSupported', value: action, detail: supported(['Audit', 'Deny', 'Warn']) });
    if (seen.has(action)) errors.push({ field: `spec.validationActions[${index}]`, type: 'FieldValueDuplicate', value: action, detail: '' });
    seen.add(action);
  });
  if (actions.includes('Deny') && actions.includes('Warn'))
    errors.push({ field: 'spec.validationActions', type: 'FieldValueInvalid', value: actions, detail: 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)' });
  validateMatchResources(spec.matchResources, 'spec.matchResources', errors, false);
  return errors;
}

/** kubectl's PARAMKIND: `<apiVersion>/<kind>` (upstream's printer), `<unset>` without one. */
const paramKindText = (kind: PolicySpec['paramKind']) => (kind ? `${kind.apiVersion ?? ''}/${kind.kind ?? ''}` : '<unset>');

/** kubectl's PARAMREF: `<namespace>/<name>`, `*` for a selector, `<unset>` without one. */
function paramRefText(ref: ParamRef | undefined): string {
  if (!ref) return '<unset>';
  const name = ref.name || '*';
  return ref.namespace ? `${ref.namespace}/${name}` : name;
}

/** Cluster-scoped storage of both kinds (cluster-admin only, as upstream). */
export const admissionPolicyResources: ResourceDefinition[] = [
  {
    group,
    resource: 'validatingadmissionpolicies',
    kind: 'ValidatingAdmissionPolicy',
    namespaced: false,
    versions: [version],
    categories: ['api-extensions'],
    subresources: { status: true },
    nameValidator: nameIsDNSSubdomain,
    printerColumns: [
      { name: 'Validations', type: 'integer', jsonPath: '.spec.validations', cell: (object) => String(policySpecOf(object).validations?.length ?? 0) },
      { name: 'ParamKind', type: 'string', jsonPath: '.spec.paramKind', cell: (object) => paramKindText(policySpecOf(object).paramKind) },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: { validate: validatePolicy, validateUpdate: validatePolicy },
  },
  {
    group,
    resource: 'validatingadmissionpolicybindings',
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
    versions: [version],
    categories: ['api-extensions'],
    nameValidator: nameIsDNSSubdomain,
    printerColumns: [
      { name: 'PolicyName', type: 'string', jsonPath: '.spec.policyName' },
      { name: 'ParamRef', type: 'string', jsonPath: '.spec.paramRef', cell: (object) => paramRefText(bindingSpecOf(object).paramRef) },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
    strategy: { validate: validateBinding, validateUpdate: validateBinding },
  },
];
