/** The feature gates kube-apiserver-lite knows, named as upstream names them, with their defaults here. */
export const knownFeatureGates = {
  /** KEP-1965: each server keeps an identity Lease in kube-system (upstream: beta, default on). */
  APIServerIdentity: true,
  /** KEP-2339: the StorageVersion API and its write barrier (upstream: alpha, default off; on here). */
  StorageVersionAPI: true,
  /** KEP-1904: watch caches follow storage progress notifications (upstream: GA, on). */
  EfficientWatchResumption: true,
} as const;

/** A known feature gate's name. */
export type FeatureGate = keyof typeof knownFeatureGates;

/** Every known gate, on or off. */
export type FeatureGates = Record<FeatureGate, boolean>;

const isFeatureGate = (name: string): name is FeatureGate => Object.hasOwn(knownFeatureGates, name);

/** Go's strconv.ParseBool. */
function parseBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/**
 * Parses `--feature-gates` values (`Name=bool,Name=bool`, repeatable) over `base`, with upstream's errors
 * for a malformed pair, a value that is not a bool and an unknown gate.
 */
export function parseFeatureGates(values: readonly string[], base: FeatureGates): FeatureGates {
  const gates = { ...base };
  for (const value of values) {
    for (const pair of value.split(',')) {
      if (pair.trim() === '') continue;
      const invalid = (reason: string) => new Error(`invalid argument ${JSON.stringify(value)} for "--feature-gates" flag: ${reason}`);
      const equals = pair.indexOf('=');
      if (equals < 0) throw invalid('malformed pair, expect string=bool');
      const name = pair.slice(0, equals).trim();
      const text = pair.slice(equals + 1).trim();
      const enabled = parseBool(text);
      if (enabled === undefined) throw invalid(`invalid value of ${name}=${text}, err: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
      if (!isFeatureGate(name)) throw invalid(`unrecognized feature gate: ${name}`);
      gates[name] = enabled;
    }
  }
  if (gates.StorageVersionAPI && !gates.APIServerIdentity) {
    throw new Error('enabling StorageVersionAPI feature gate requires also enabling APIServerIdentity feature gate');
  }
  return gates;
}
