import type { KubeObject } from '@kapi/apimachinery';
import { defaultAttributes, predicateHasSelectors, type AttributesFunc, type ObjectAttributes, type SelectionPredicate } from '@kapi/storage';

/**
 * Matches predicates against cached objects, computing each object's attributes once (cached objects
 * are shared and never change) unless the predicate brings its own attribute function.
 */
export class ObjectMatcher {
  private readonly attributes = new WeakMap<KubeObject, ObjectAttributes>();

  constructor(private readonly getAttributes: AttributesFunc = defaultAttributes) {}

  /** A filter for `predicate`, or `undefined` when it selects everything. */
  filterFor(predicate: SelectionPredicate | undefined): ((object: KubeObject) => boolean) | undefined {
    if (!predicate || !predicateHasSelectors(predicate)) return undefined;
    const { label, field } = predicate;
    const own = predicate.getAttributes;
    return (object) => {
      const attributes = own ? own(object) : this.attributesOf(object);
      return (!label || label.matches(attributes.labels)) && (!field || field.matches(attributes.fields));
    };
  }

  private attributesOf(object: KubeObject): ObjectAttributes {
    let attributes = this.attributes.get(object);
    if (!attributes) {
      attributes = this.getAttributes(object);
      this.attributes.set(object, attributes);
    }
    return attributes;
  }
}

/** The default storage key of an object under `prefix`: `<prefix>/<namespace>/<name>` or `<prefix>/<name>`. */
export function defaultKeyFunc(prefix: string): (object: KubeObject) => string {
  const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  return (object) => {
    const { namespace, name = '' } = object.metadata;
    return namespace ? `${base}/${namespace}/${name}` : `${base}/${name}`;
  };
}

/** Smallest per-watcher queue. Upstream's is 10, but it blocks dispatch for a while before dropping a watcher; we never block. */
export const MIN_WATCHER_QUEUE = 100;
/** Largest per-watcher queue without an index. */
export const MAX_WATCHER_QUEUE_WITHOUT_INDEX = 100;
/** Largest per-watcher queue when the cache has indexes. */
export const MAX_WATCHER_QUEUE_WITH_INDEX = 1000;

/**
 * Per-watcher queue size (watch_cache.go suggestedWatchChannelSize): about one second of history,
 * `ceil(capacity / windowSeconds)`, clamped to [{@link MIN_WATCHER_QUEUE}, 100 or 1000 with indexes].
 */
export function watcherQueueCapacity(historyCapacity: number, windowMs: number, indexed: boolean): number {
  const perSecond = Math.ceil(historyCapacity / (windowMs / 1000));
  const max = indexed ? MAX_WATCHER_QUEUE_WITH_INDEX : MAX_WATCHER_QUEUE_WITHOUT_INDEX;
  return Math.min(Math.max(perSecond, MIN_WATCHER_QUEUE), max);
}
