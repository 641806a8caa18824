import { StatusError, type KubeObject, type StatusReason } from '@kapi/apimachinery';
import { ComposedVariables, compileAdmissionExpression, evaluateWithAuthorizer } from '@kapi/apiextensions';
import { bindingSpecOf, policySpecOf, type MatchResources, type ParamRef, type PolicySpec } from './admission-policies.js';
import type { ObjectSet } from './object-sets.js';
import { authorizerOf, celAuthorizerOf } from './admission-authorizer.js';
import { admissionRequest } from './webhook-dispatcher.js';
import {
  atVersion,
  matchedVersion,
  namespaceSelectorMatches,
  objectSelectorMatches,
  rulesMatch,
  type AdmissionAttributes,
} from './admission-matching.js';

/** What the policies need of the server. */
export interface AdmissionPolicySources {
  /**
   * The policies and bindings, kept current (called on start, once they are installed): {@link storedPolicies}
   * of this server's storage, or {@link servedPolicies} of another server.
   */
  objects(): Promise<{ policies: ObjectSet; bindings: ObjectSet }>;
  /** A namespace, if it exists (`namespaceObject`, namespaceSelector); none without it. */
  namespace?(name: string): Promise<KubeObject | undefined>;
  /**
   * The parameter objects of `paramKind` a binding's paramRef names (by name or selector), in `namespace`
   * when the kind is namespaced; throws an Error explaining why they cannot be read. Without it, a
   * policy with a paramKind fails to configure (its failurePolicy applies).
   */
  params?(paramKind: { apiVersion?: string; kind?: string }, namespace: string, ref: ParamRef): Promise<KubeObject[]>;
}

const codes: Record<string, number> = { Invalid: 422, Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413 };

/** One failed validation of a policy. */
interface Failure {
  message: string;
  reason: string;
  /** The index of the validation in `spec.validations` (0 for other failures). */
  index?: number;
}

/** What a policy's evaluation for one parameter object gives: failures and audit annotation values. */
interface Evaluation {
  failures: Failure[];
  annotations: Array<[key: string, value: string]>;
}

/** The audit annotation of the failures of bindings with validationActions Audit (upstream's key and fields). */
const validationFailureAnnotation = 'validation.policy.admission.k8s.io/validation_failure';

/** Upstream truncates an audit annotation value at 10 KiB. */
const maxAnnotationValue = 10 * 1024;

/**
 * Upstream's ValidatingAdmissionPolicy plugin: each ValidatingAdmissionPolicyBinding whose policy exists
 * and whose policy's matchConstraints, own matchResources and policy's matchConditions match the request
 * evaluates the policy's CEL validations on `object`, `oldObject`, `request`, `namespaceObject`,
 * `authorizer` and its composition `variables`. A
 * failed validation denies the request (`Deny`: `ValidatingAdmissionPolicy '<policy>' with binding
 * '<binding>' denied request: <message>`, 422 unless the validation's reason says otherwise) and/or adds
 * a Warning (`Warn`); an expression that fails to evaluate is a failure under `failurePolicy: Fail`.
 */
export class ValidatingAdmissionPolicies {
  private policies: ObjectSet | undefined;
  private bindings: ObjectSet | undefined;

  constructor(private readonly sources: AdmissionPolicySources) {}

  /** Starts the watches; resolves once both listed. Until then no policy applies. */
  async start(): Promise<void> {
    ({ policies: this.policies, bindings: this.bindings } = await this.sources.objects());
  }

  stop(): void {
    this.policies?.stop();
    this.bindings?.stop();
  }

  /** Whether any binding exists (the per-request fast path). */
  get active(): boolean {
    return (this.bindings?.objects.size ?? 0) > 0;
  }

  /**
   * Runs every bound policy that matches the request: warnings for `Warn` bindings, the request's audit
   * annotations (the policies' auditAnnotations, and the failures of `Audit` bindings), then throws the
   * first denial of a `Deny` binding.
   */
  async validate(attributes: AdmissionAttributes): Promise<void> {
    const bindings = [...(this.bindings?.objects.values() ?? [])].sort((a, b) =>
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
    );
    let denial: StatusError | undefined;
    const audited: Array<{ message: string; policy: string; binding: string; expressionIndex: number; validationActions: string[] }> = [];
    const annotations = new Map<string, Set<string>>();
    for (const binding of bindings) {
      const spec = bindingSpecOf(binding);
      const policy = spec.policyName ? this.policies?.objects.get(`/${spec.policyName}`) : undefined;
      if (!policy) continue;
      const policySpec = policySpecOf(policy);
      const version = await this.matches(policySpec.matchConstraints, attributes, false);
      if (version === undefined) continue;
      if (spec.matchResources && (await this.matches(spec.matchResources, attributes, true)) === undefined) continue;
      // The objects in the version the policy's rules matched (the request's, or an equivalent one).
      const asked = await atVersion(attributes, version);
      const namespaceObject = asked.namespaced ? ((await this.sources.namespace?.(asked.namespace)) ?? null) : null;
      const variables = {
        object: asked.object ?? null,
        oldObject: asked.oldObject ?? null,
        request: admissionRequest(asked),
        namespaceObject,
        authorizer: authorizerOf(asked),
      };
      const policyName = policy.metadata.name ?? '';
      const bindingName = binding.metadata.name ?? '';
      const names = `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}'`;
      const failures: Failure[] = [];
      const params = await this.paramsOf(policySpec, spec.paramRef, asked);
      if ('failure' in params) {
        if (policySpec.failurePolicy !== 'Ignore') failures.push(params.failure);
      } else {
        const authorizer = celAuthorizerOf(asked);
        for (const param of params.objects) {
          const evaluation = await evaluateWithAuthorizer(authorizer, () => evaluate(policySpec, { ...variables, params: param }));
          failures.push(...evaluation.failures);
          for (const [key, value] of evaluation.annotations) {
            const values = annotations.get(`${policyName}/${key}`) ?? new Set<string>();
            annotations.set(`${policyName}/${key}`, values.add(value));
          }
        }
      }
      const actions = spec.validationActions ?? [];
      for (const failure of failures) {
        if (actions.includes('Warn')) attributes.warn?.(`Validation failed for ${names}: ${failure.message}`);
        if (actions.includes('Audit'))
          audited.push({ message: failure.message, policy: policyName, binding: bindingName, expressionIndex: failure.index ?? 0, validationActions: actions });
        if (actions.includes('Deny'))
          denial ??= StatusError.of(codes[failure.reason] ?? 422, failure.reason as StatusReason, `${names} denied request: ${failure.message}`);
      }
    }
    for (const [key, values] of annotations) attributes.annotate?.(key, [...values].join(', ').slice(0, maxAnnotationValue));
    if (audited.length) attributes.annotate?.(validationFailureAnnotation, JSON.stringify(audited));
    if (denial) throw denial;
  }

  /**
   * The parameter objects a policy is evaluated with (one `null` without paramKind), or why the binding
   * cannot be evaluated (upstream's `failed to configure binding: ...`, a failure under failurePolicy Fail;
   * no parameter found under parameterNotFoundAction Deny is one whatever the failure policy).
   */
  private async paramsOf(
    policy: PolicySpec,
    ref: ParamRef | undefined,
    attributes: AdmissionAttributes,
  ): Promise<{ objects: Array<KubeObject | null> } | { failure: Failure }> {
    if (!policy.paramKind) return { objects: [null] };
    const misconfigured = (text: string) => ({ failure: { message: `failed to configure binding: ${text}`, reason: 'Invalid' } });
    if (!ref) return misconfigured('paramRef is required when the policy has a paramKind');
    let objects: KubeObject[];
    try {
      if (!this.sources.params) throw new Error('this server does not read policy parameters');
      objects = await this.sources.params(policy.paramKind, ref.namespace || attributes.namespace, ref);
    } catch (error) {
      return misconfigured(error instanceof Error ? error.message : String(error));
    }
    if (objects.length > 0) return { objects };
    if (ref.parameterNotFoundAction === 'Deny')
      return misconfigured('no params found for policy binding with `Deny` parameterNotFoundAction');
    return { objects: [] };
  }

  /**
   * Upstream's matching of MatchResources: the version the request is evaluated in when it matches (a
   * binding's without resource rules matches what its policy matches), else undefined.
   */
  private async matches(match: MatchResources | undefined, attributes: AdmissionAttributes, binding: boolean): Promise<string | undefined> {
    if (!match) return undefined;
    const rules = match.resourceRules ?? [];
    const policy = match.matchPolicy;
    const version = binding && rules.length === 0 ? attributes.version : matchedVersion({ rules, matchPolicy: policy }, attributes);
    if (version === undefined) return undefined;
    if (rulesMatch({ rules: match.excludeResourceRules ?? [], matchPolicy: policy }, attributes)) return undefined;
    if (!objectSelectorMatches(match, attributes)) return undefined;
    const namespaceLabels = async (namespace: string) => (await this.sources.namespace?.(namespace))?.metadata.labels ?? {};
    return (await namespaceSelectorMatches(match, attributes, namespaceLabels)) ? version : undefined;
  }
}

/** The policy's failed validations and audit annotations (none when a matchCondition is false). */
function evaluate(spec: PolicySpec, variables: Record<string, unknown>): Evaluation {
  const failOpen = spec.failurePolicy === 'Ignore';
  const errorFailure = (text: string, index?: number): Failure[] =>
    failOpen ? [] : [{ message: text, reason: 'Invalid', ...(index === undefined ? {} : { index }) }];
  const none: Evaluation = { failures: [], annotations: [] };
  // Composition variables, in order (each may read the ones before it). One that fails is left out: an
  // expression reading it then fails (upstream evaluates them lazily, on first read).
  const composed = new ComposedVariables();
  for (const variable of spec.variables ?? []) {
    const compiled = compileAdmissionExpression(variable.expression, true);
    if (!('error' in compiled)) compiled.compose(variables, composed, variable.name);
  }
  const run = (expression: string) => {
    const compiled = compileAdmissionExpression(expression, true);
    return 'error' in compiled ? compiled : compiled.evaluate(variables, composed);
  };
  for (const condition of spec.matchConditions ?? []) {
    const result = run(condition.expression);
    if ('error' in result) return { ...none, failures: errorFailure(`expression '${condition.expression}' resulted in error: ${result.error}`) };
    if (result.value === false) return none;
  }
  const failures: Failure[] = [];
  (spec.validations ?? []).forEach((validation, index) => {
    const result = run(validation.expression);
    if ('error' in result) {
      failures.push(...errorFailure(`expression '${validation.expression}' resulted in error: ${result.error}`, index));
      return;
    }
    if (result.value === true) return;
    let message = validation.message || `failed expression: ${validation.expression.trim()}`;
    if (validation.messageExpression) {
      const text = run(validation.messageExpression);
      if ('value' in text && typeof text.value === 'string' && text.value.trim()) message = text.value.trim();
    }
    failures.push({ message, reason: validation.reason ?? 'Invalid', index });
  });
  // auditAnnotations: a string value is kept (an empty one or null omits the annotation).
  const annotations: Evaluation['annotations'] = [];
  for (const annotation of spec.auditAnnotations ?? []) {
    const result = run(annotation.valueExpression);
    if ('error' in result) failures.push(...errorFailure(`valueExpression '${annotation.valueExpression}' resulted in error: ${result.error}`));
    else if (typeof result.value === 'string' && result.value !== '') annotations.push([annotation.key, result.value]);
  }
  return { failures, annotations };
}
