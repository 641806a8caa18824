/**
 * Whether an etcd server version answers RequestProgress safely, i.e. only after every event up to the
 * notified revision was delivered (etcd#15220, fixed in 3.4.31 and 3.5.13; Kubernetes gates on the same).
 */
export function supportsRequestProgress(version: string): boolean {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!match) return false;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  const patch = Number(match[3]);
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}
