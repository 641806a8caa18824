const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Rank of a version in Kubernetes' order: GA > beta > alpha (higher numbers first), others last. */
function rank(version: string): [number, number, number] {
  const match = KUBE_VERSION.exec(version);
  if (!match) return [3, 0, 0];
  const stability = match[2] === undefined ? 0 : match[2] === 'beta' ? 1 : 2;
  return [stability, -Number(match[1]), -Number(match[3] ?? 0)];
}

/** Sorts versions kube-aware (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > non-kube versions by name). */
export function sortVersionsKubeAware(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return (ra[i] ?? 0) - (rb[i] ?? 0);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
