import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { StatusError, type KubeObject, type StatusReason } from '@kapi/apimachinery';
import { WebhookClient, compileAdmissionExpression, evaluateWithAuthorizer, type ServiceResolver } from '@kapi/apiextensions';
import { applyJsonPatch } from '@kapi/server';
import { webhooksOf, type AdmissionWebhook } from './admission-registration.js';
import type { ObjectSet } from './object-sets.js';
import { authorizerOf, celAuthorizerOf } from './admission-authorizer.js';
import type { WebhookCall, WebhookCallObserver } from './webhook-metrics.js';
import {
  atVersion,
  matchedVersion,
  namespaceSelectorMatches,
  objectSelectorMatches,
  type AdmissionAttributes,
} from './admission-matching.js';

/** An AdmissionReview's `response`. */
interface AdmissionResponse {
  uid?: string;
  allowed?: boolean;
  status?: { code?: number; reason?: string; message?: string };
  patch?: string;
  patchType?: string;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** A webhook that could not be asked (upstream's ErrCallingWebhook): its failure policy decides. */
class CallFailure extends Error {
  /** The webhook's HTTP status, when it answered (0 when it could not be reached). */
  constructor(
    message: string,
    readonly code = 0,
  ) {
    super(message);
  }
}

/** What the dispatcher needs of the server. */
export interface AdmissionWebhookSources {
  /**
   * The two configuration resources' objects, kept current (called on start, once they are installed):
   * {@link storedWebhookConfigurations} of this server's storage, or {@link servedWebhookConfigurations}
   * of another server (an aggregated server's main server).
   */
  configurations(): Promise<{ validating: ObjectSet; mutating: ObjectSet }>;
  /**
   * Resolves a webhook's `clientConfig.service` to an address (e.g. from its EndpointSlices). Without one,
   * only webhooks with a `url` can be called.
   */
  resolveService?: ServiceResolver;
  /** The labels of a namespace ({} when it does not exist; the default, for a server without namespaces). */
  namespaceLabels?(namespace: string): Promise<Record<string, string>>;
  /** Told of every webhook call (the metrics). */
  observe?: WebhookCallObserver;
}

interface Configured {
  webhook: AdmissionWebhook;
  mutating: boolean;
  /** The name of its configuration. */
  configuration: string;
}

const operationOptions = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' } as const;

/**
 * Upstream's MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: the webhooks of every
 * Mutating/ValidatingWebhookConfiguration (kept in memory by watches), asked in configuration-name
 * order with an admission.k8s.io/v1 AdmissionReview when their rules, namespaceSelector, objectSelector
 * and matchConditions match a request. Mutating webhooks run before validation and may patch the object
 * (JSONPatch; `reinvocationPolicy: IfNeeded` ones are asked once more when a later webhook changed it);
 * validating webhooks run after it. A webhook that denies refuses the request with its status; one that
 * cannot be asked refuses it with 500 under `failurePolicy: Fail` and is skipped under `Ignore`.
 */
export class AdmissionWebhookDispatcher {
  private validating: ObjectSet | undefined;
  private mutating: ObjectSet | undefined;
  private cached: { generation: string; hooks: Configured[] } | undefined;

  constructor(private readonly sources: AdmissionWebhookSources) {}

  /** Starts the watches; resolves once both listed. Until then no webhook is called. */
  async start(): Promise<void> {
    ({ validating: this.validating, mutating: this.mutating } = await this.sources.configurations());
  }

  stop(): void {
    this.validating?.stop();
    this.mutating?.stop();
  }

  /** Every configured webhook, mutating ones first, each kind in configuration-name order. */
  private hooks(): Configured[] {
    const generation = `${this.mutating?.generation}/${this.validating?.generation}`;
    if (this.cached?.generation === generation) return this.cached.hooks;
    const of = (objects: ObjectSet | undefined, mutating: boolean) =>
      [...(objects?.objects.values() ?? [])]
        .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
        .flatMap((configuration) =>
          webhooksOf(configuration).map((webhook) => ({ webhook, mutating, configuration: configuration.metadata.name ?? '' })),
        );
    const hooks = [...of(this.mutating, true), ...of(this.validating, false)];
    this.cached = { generation, hooks };
    return hooks;
  }

  /** Whether any webhook is configured (the per-request fast path). */
  get active(): boolean {
    return (this.mutating?.objects.size ?? 0) > 0 || (this.validating?.objects.size ?? 0) > 0;
  }

  /** The webhooks of one kind that match, each with the attributes it is asked with. */
  private async matching(attributes: AdmissionAttributes, mutating: boolean): Promise<Array<[AdmissionWebhook, AdmissionAttributes]>> {
    const matched: Array<[AdmissionWebhook, AdmissionAttributes]> = [];
    for (const hook of this.hooks()) {
      const asked = hook.mutating === mutating ? await this.matches(hook.webhook, attributes) : undefined;
      if (asked) matched.push([hook.webhook, asked]);
    }
    return matched;
  }

  /**
   * The attributes `webhook` is asked with when it matches the request (rules, selectors, then its
   * matchConditions on the objects in the version it is asked in); undefined when it does not.
   */
  private async matches(webhook: AdmissionWebhook, attributes: AdmissionAttributes): Promise<AdmissionAttributes | undefined> {
    const version = matchedVersion(webhook, attributes);
    if (
      version === undefined ||
      !objectSelectorMatches(webhook, attributes) ||
      !(await namespaceSelectorMatches(webhook, attributes, async (namespace) => (await this.sources.namespaceLabels?.(namespace)) ?? {}))
    )
      return undefined;
    const asked = await atVersion(attributes, version);
    const outcome = await evaluateWithAuthorizer(celAuthorizerOf(asked), () => conditionsOutcome(webhook, asked));
    if (typeof outcome === 'boolean') return outcome ? asked : undefined;
    if (webhook.failurePolicy === 'Ignore') return undefined;
    throw StatusError.internal(`failed calling webhook "${webhook.name}": failed evaluating match conditions: ${outcome}`);
  }

  /**
   * The mutating webhooks on a create or update: the object as they leave it. As upstream, each webhook
   * is matched against the object as the webhooks before it left it (a label one adds can select the next).
   * A webhook asked in another version than the request's (matchPolicy Equivalent) patches the object in
   * that version, which is then converted back.
   */
  async mutate(attributes: AdmissionAttributes & { object: KubeObject }): Promise<KubeObject> {
    let object = attributes.object;
    const called: Array<{ hook: Configured; index: number }> = [];
    let changedAt = -1;
    // Each call is recorded in the audit event as upstream's `mutation.webhook.admission.k8s.io/round_<r>_index_<i>`.
    const askOnce = async (hook: Configured, index: number, round: number): Promise<boolean> => {
      const { webhook } = hook;
      const asked = await this.matches(webhook, { ...attributes, object });
      if (!asked) return false;
      if (round === 0) called.push({ hook, index });
      const patched = await this.ask(webhook, asked, true);
      // Mutated when the patch changed something (an empty or no-op patch does not).
      const mutated = patched !== undefined && !isDeepStrictEqual(patched, asked.object);
      attributes.annotate?.(
        `mutation.webhook.admission.k8s.io/round_${round}_index_${index}`,
        JSON.stringify({ configuration: hook.configuration, webhook: webhook.name, mutated }),
      );
      if (!mutated) return true;
      object = asked.version === attributes.version || !attributes.convert ? patched : await attributes.convert(patched, attributes.version);
      return true;
    };
    const mutating = this.hooks().filter((hook) => hook.mutating);
    for (const [index, hook] of mutating.entries()) {
      const before = object;
      if ((await askOnce(hook, index, 0)) && object !== before) changedAt = called.length - 1;
    }
    // Asked once more: the IfNeeded webhooks that saw the object before a later webhook changed it.
    for (const { hook, index } of called.slice(0, Math.max(changedAt, 0)))
      if (hook.webhook.reinvocationPolicy === 'IfNeeded') await askOnce(hook, index, 1);
    return object;
  }

  /** The validating webhooks (and, on delete, the mutating ones, which may only refuse it). */
  async validate(attributes: AdmissionAttributes): Promise<void> {
    if (attributes.operation === 'DELETE')
      for (const [webhook, asked] of await this.matching(attributes, true)) await this.ask(webhook, asked, true);
    await Promise.all((await this.matching(attributes, false)).map(([webhook, asked]) => this.ask(webhook, asked, false)));
  }

  /** Asks one webhook; returns the patched object when a mutating one changed it (not on delete). */
  private async ask(webhook: AdmissionWebhook, attributes: AdmissionAttributes, mutating: boolean): Promise<KubeObject | undefined> {
    const started = performance.now();
    const observed = (outcome: WebhookCall['outcome'], code: number, rejectionCode = 0) =>
      this.sources.observe?.({
        name: webhook.name,
        type: mutating ? 'admit' : 'validating',
        operation: attributes.operation,
        seconds: (performance.now() - started) / 1000,
        code,
        outcome,
        rejectionCode,
      });
    let response: AdmissionResponse;
    try {
      response = await this.call(webhook, attributes);
    } catch (error) {
      if (!(error instanceof CallFailure)) throw error;
      if (webhook.failurePolicy === 'Ignore') {
        observed('failed-open', error.code);
        return undefined;
      }
      observed('failed-closed', error.code);
      throw StatusError.internal(`failed calling webhook "${webhook.name}": ${error.message}`);
    }
    for (const warning of response.warnings ?? []) if (typeof warning === 'string') attributes.warn?.(warning);
    // As upstream, a webhook's audit annotations are keyed by its name.
    for (const [key, value] of Object.entries(response.auditAnnotations ?? {}))
      if (typeof value === 'string') attributes.annotate?.(`${webhook.name}/${key}`, value);
    if (!response.allowed) {
      const refusal = denied(webhook.name, response.status);
      observed('denied', 200, refusal.code);
      throw refusal;
    }
    observed('allowed', 200);
    if (!mutating || !response.patch || attributes.object === undefined) return undefined;
    if (response.patchType !== 'JSONPatch')
      throw StatusError.internal(`failed calling webhook "${webhook.name}": unsupported patch type "${response.patchType ?? ''}"`);
    try {
      const operations = JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as unknown;
      return applyJsonPatch(structuredClone(attributes.object), operations) as KubeObject;
    } catch (error) {
      throw StatusError.internal(`failed to apply the patch of webhook "${webhook.name}": ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async call(webhook: AdmissionWebhook, attributes: AdmissionAttributes): Promise<AdmissionResponse> {
    const request = admissionRequest(attributes);
    const uid = request.uid;
    const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request };
    const client = new WebhookClient(webhook.clientConfig, this.sources.resolveService ?? noServices, webhook.timeoutSeconds ?? 10);
    let answer: { status: number; body: string };
    try {
      answer = await client.post(JSON.stringify(review));
    } catch (error) {
      throw new CallFailure(`failed to call webhook: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (answer.status < 200 || answer.status > 299)
      throw new CallFailure(
        `failed to call webhook: the server responded with the status code ${answer.status} but did not return more information`,
        answer.status,
      );
    let parsed: { apiVersion?: string; kind?: string; response?: AdmissionResponse };
    try {
      parsed = JSON.parse(answer.body) as typeof parsed;
    } catch {
      throw new CallFailure('received invalid webhook response: the response is not JSON');
    }
    if (parsed.apiVersion !== 'admission.k8s.io/v1' || parsed.kind !== 'AdmissionReview')
      throw new CallFailure(
        `received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${parsed.apiVersion ?? ''}, Kind=${parsed.kind ?? ''}`,
      );
    const response = parsed.response;
    if (!response) throw new CallFailure('received invalid webhook response: webhook response was absent');
    if (response.uid !== uid) throw new CallFailure(`expected response.uid="${uid}", got "${response.uid ?? ''}"`);
    return response;
  }
}

/** The resolver of a server that cannot reach Services. */
const noServices: ServiceResolver = (service) => {
  throw new Error(`service "${service.namespace}/${service.name}" cannot be resolved by this server: use clientConfig.url`);
};

/** Upstream's ToStatusErr: a webhook's refusal, with its code (400 when it gave none below 400). */
function denied(name: string, status: AdmissionResponse['status']): StatusError {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const code = status?.code !== undefined && status.code >= 400 ? status.code : 400;
  const message = status?.message
    ? `${deniedBy}: ${status.message}`
    : status?.reason
      ? `${deniedBy}: ${status.reason}`
      : `${deniedBy} without explanation`;
  return StatusError.of(code, (status?.reason ?? '') as StatusReason, message);
}

/** The AdmissionReview `request` of a call (a new uid each time). */
export function admissionRequest(attributes: AdmissionAttributes) {
  const { group, version, user } = attributes;
  const requestVersion = attributes.requestVersion ?? version;
  return {
    uid: randomUUID(),
    kind: { group, version, kind: attributes.kind },
    resource: { group, version, resource: attributes.resource },
    ...(attributes.subresource ? { subResource: attributes.subresource } : {}),
    requestKind: { group, version: requestVersion, kind: attributes.kind },
    requestResource: { group, version: requestVersion, resource: attributes.resource },
    ...(attributes.subresource ? { requestSubResource: attributes.subresource } : {}),
    name: attributes.name,
    ...(attributes.namespace ? { namespace: attributes.namespace } : {}),
    operation: attributes.operation,
    userInfo: user
      ? { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) }
      : {},
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    dryRun: attributes.dryRun,
    options: { apiVersion: 'meta.k8s.io/v1', kind: operationOptions[attributes.operation] },
  };
}

/**
 * Upstream's matchConditions: every condition true calls the webhook (true); any false skips it (false);
 * otherwise the first evaluation error (the webhook's failure: `failed evaluating match conditions: ...`).
 */
function conditionsOutcome(webhook: AdmissionWebhook, attributes: AdmissionAttributes): boolean | string {
  const conditions = webhook.matchConditions ?? [];
  if (conditions.length === 0) return true;
  const variables = {
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    request: admissionRequest(attributes),
    authorizer: authorizerOf(attributes),
  };
  let failure: string | undefined;
  for (const condition of conditions) {
    const compiled = compileAdmissionExpression(condition.expression);
    const result = 'error' in compiled ? compiled : compiled.evaluate(variables);
    if ('value' in result && result.value === false) return false;
    if ('error' in result) failure ??= `${condition.name}: ${result.error}`;
    else if (result.value !== true) failure ??= `${condition.name}: the expression did not evaluate to a bool`;
  }
  return failure ?? true;
}
