import { readFileSync } from 'node:fs';
import { StatusError } from '@kapi/apimachinery';
import type { RestClient } from '@kapi/client';
import type { AggregatedServerOptions } from './options.js';

/** Front-proxy (request-header) authentication settings. */
export interface RequestHeaderConfig {
  /** PEM of the CA(s) that sign the front proxy's client certificate. */
  clientCA: string;
  /** CNs allowed to send identity headers; empty: any certificate the CA signed. */
  allowedNames: string[];
  usernameHeaders: string[];
  /** Headers carrying the user's UID (upstream's `--requestheader-uid-headers`); none by default. */
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** What the delegating authenticator needs from the main server or the flags. */
export interface AuthenticationConfig {
  /** Absent: identity headers are never trusted. */
  requestHeader?: RequestHeaderConfig;
  /** PEM of the CA(s) of plain client certificates. */
  clientCA?: string;
}

/** The ConfigMap the main server publishes for its aggregated servers (upstream's name and keys). */
export const authenticationConfigMap = { namespace: 'kube-system', name: 'extension-apiserver-authentication' };

function jsonList(value: string | undefined): string[] | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : undefined;
}

/** Reads the ConfigMap; undefined when it does not exist. */
async function readConfigMap(client: RestClient): Promise<Record<string, string> | undefined> {
  const { namespace, name } = authenticationConfigMap;
  try {
    const configMap = await client.request<{ data?: Record<string, string> }>({
      method: 'GET',
      path: `/api/v1/namespaces/${namespace}/configmaps/${name}`,
    });
    return configMap.data ?? {};
  } catch (error) {
    if (StatusError.isInstance(error) && error.status.code === 404) return undefined;
    throw error;
  }
}

/**
 * The authentication settings as upstream's delegating authentication computes them: flags win, the
 * main server's ConfigMap `kube-system/extension-apiserver-authentication` fills what they leave out.
 */
export async function loadAuthenticationConfig(
  options: AggregatedServerOptions,
  client: RestClient,
): Promise<AuthenticationConfig> {
  const needsConfigMap = !options.requestHeaderClientCAFile || !options.clientCAFile;
  const data = needsConfigMap ? ((await readConfigMap(client)) ?? {}) : {};
  const config: AuthenticationConfig = {};
  const clientCA = options.clientCAFile ? readFileSync(options.clientCAFile, 'utf8') : data['client-ca-file'];
  if (clientCA) config.clientCA = clientCA;
  const fromFlags = options.requestHeaderClientCAFile !== undefined;
  const requestHeaderCA = fromFlags
    ? readFileSync(options.requestHeaderClientCAFile ?? '', 'utf8')
    : data['requestheader-client-ca-file'];
  if (requestHeaderCA) {
    const pick = (flag: string[] | undefined, key: string, fallback: string[]): string[] =>
      flag ?? (fromFlags ? undefined : jsonList(data[key])) ?? fallback;
    config.requestHeader = {
      clientCA: requestHeaderCA,
      allowedNames: pick(options.requestHeaderAllowedNames, 'requestheader-allowed-names', []),
      usernameHeaders: pick(options.requestHeaderUsernameHeaders, 'requestheader-username-headers', ['X-Remote-User']),
      uidHeaders: pick(options.requestHeaderUIDHeaders, 'requestheader-uid-headers', []),
      groupHeaders: pick(options.requestHeaderGroupHeaders, 'requestheader-group-headers', ['X-Remote-Group']),
      extraHeaderPrefixes: pick(
        options.requestHeaderExtraHeadersPrefix,
        'requestheader-extra-headers-prefix',
        ['X-Remote-Extra-'],
      ),
    };
  }
  return config;
}
