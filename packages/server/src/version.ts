import { rejectNonGet, requestPath, sendJson, type PathHandler } from './discovery/http-response.js';

/** The `/version` document (k8s.io/apimachinery `version.Info`), as `kubectl version` reads it. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  /** Kubernetes reports the Go version; kapi reports the Node.js version string. */
  goVersion: string;
  compiler: string;
  platform: string;
  /** Present on newer servers: the oldest version this one emulates/is compatible with. */
  emulationMajor?: string;
  emulationMinor?: string;
  minCompatibilityMajor?: string;
  minCompatibilityMinor?: string;
}

/** The Kubernetes API version kapi aims to match. */
export const KUBERNETES_VERSION = 'v1.34.0';

/**
 * Builds the version document. `gitVersion` defaults to `v1.34.0-kapi`; `major`/`minor` are derived from
 * it (a `+` marks a pre-release/suffixed minor, as upstream does for non-release builds).
 */
export function versionInfo(overrides: Partial<VersionInfo> = {}): VersionInfo {
  const gitVersion = overrides.gitVersion ?? `${KUBERNETES_VERSION}-kapi`;
  const match = /^v(\d+)\.(\d+)\.\d+(.*)$/.exec(gitVersion);
  const major = match?.[1] ?? '1';
  const minor = match ? `${match[2]}${match[3] ? '+' : ''}` : '34';
  return {
    major,
    minor,
    gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: process.version,
    compiler: 'node',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
    ...overrides,
  };
}

/** Serves `GET /version` (and `/version/`). Returns true when it handled the request. */
export function createVersionHandler(info: VersionInfo = versionInfo()): PathHandler {
  return (request, response) => {
    const path = requestPath(request);
    if (path !== '/version' && path !== '/version/') return false;
    if (rejectNonGet(request, response)) return true;
    sendJson(request, response, 200, info);
    return true;
  };
}
