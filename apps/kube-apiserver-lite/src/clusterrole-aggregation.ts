import { StatusError, labelSelectorFromObject, type KubeObject, type LabelSelectorObject } from '@kapi/apimachinery';
import { Informer, ResourceClient, type RestClient } from '@kapi/client';
import type { PolicyRule } from '@kapi/filters';

interface AggregationRule {
  clusterRoleSelectors?: LabelSelectorObject[];
}

const field = (rule: PolicyRule, name: keyof PolicyRule) => JSON.stringify(rule[name] ?? []);
const sameRule = (a: PolicyRule, b: PolicyRule) =>
  (['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const).every((name) => field(a, name) === field(b, name));

/**
 * The rules an aggregated ClusterRole should hold: those of every other ClusterRole one of its
 * `clusterRoleSelectors` matches, by name order, each rule once (upstream's aggregation controller).
 */
export function aggregatedRules(role: KubeObject, clusterRoles: readonly KubeObject[]): PolicyRule[] {
  const selectors = ((role.aggregationRule as AggregationRule | undefined)?.clusterRoleSelectors ?? []).flatMap((selector) => {
    try {
      return [labelSelectorFromObject(selector)];
    } catch {
      return [];
    }
  });
  const sources = clusterRoles
    .filter((other) => other.metadata.name !== role.metadata.name)
    .filter((other) => selectors.some((selector) => selector.matches(other.metadata.labels ?? {})))
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const rules: PolicyRule[] = [];
  for (const source of sources) {
    for (const rule of (source.rules as PolicyRule[] | undefined) ?? []) if (!rules.some((held) => sameRule(held, rule))) rules.push(rule);
  }
  return rules;
}

/**
 * ClusterRole aggregation: keeps the `rules` of every ClusterRole with an `aggregationRule` equal to the
 * union of the rules of the ClusterRoles its selectors match (so `admin`, `edit` and `view` gather the
 * `aggregate-to-*` roles). An informer on clusterroles feeds a one-key work queue: any change reconciles
 * every aggregated role, and a failed write is retried after a second.
 */
export class ClusterRoleAggregationController {
  private readonly clusterRoles: ResourceClient;
  private readonly informer: Informer;
  private dirty = false;
  private running: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(rest: RestClient) {
    this.clusterRoles = new ResourceClient(rest, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', namespaced: false });
    this.informer = new Informer(this.clusterRoles);
  }

  start(): void {
    const enqueue = () => this.enqueue();
    this.informer.addEventHandler({ onAdd: enqueue, onUpdate: enqueue, onDelete: enqueue });
    this.informer.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.informer.stop();
    await this.running;
  }

  private enqueue(): void {
    this.dirty = true;
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  private async drain(): Promise<void> {
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      // Let a burst of informer events (the initial list) settle into one pass.
      await new Promise((resolve) => setImmediate(resolve));
      try {
        await this.reconcileAll();
      } catch {
        clearTimeout(this.retry);
        this.retry = setTimeout(() => this.enqueue(), 1000);
        this.retry.unref();
      }
    }
  }

  private async reconcileAll(): Promise<void> {
    const all = this.informer.indexer.list();
    let failed: unknown;
    for (const role of all) {
      if (!role.aggregationRule) continue;
      const rules = aggregatedRules(role, all);
      const current = (role.rules as PolicyRule[] | undefined) ?? [];
      if (current.length === rules.length && current.every((rule, index) => sameRule(rule, rules[index] as PolicyRule))) continue;
      try {
        await this.clusterRoles.update(undefined, { ...role, rules });
      } catch (error) {
        // A conflict means a newer version is on its way through the informer, which enqueues again.
        if (!(StatusError.isInstance(error) && error.code === 409)) failed = error;
      }
    }
    if (failed) throw failed;
  }
}
