import type { TransformContext, TransformedValue, ValueTransformer } from '../codec.js';
import { additionalDataOf, aesCbcMode, aesGcmMode, type AesMode } from './aes-transformer.js';
import { identityProviderTransformer, prefixTransformer, type PrefixedTransformer } from './prefix-transformer.js';
import { loadFastSecretbox, secretboxMode } from './secretbox-mode.js';

/** A named key of an encryption provider, as in the file (secret base64-encoded). */
export interface EncryptionConfigurationKey {
  name: string;
  secret: string;
}

/** One provider of a `resources[]` entry: exactly one of the fields is set. */
export interface EncryptionProviderConfiguration {
  aescbc?: { keys: EncryptionConfigurationKey[] };
  aesgcm?: { keys: EncryptionConfigurationKey[] };
  secretbox?: { keys: EncryptionConfigurationKey[] };
  identity?: Record<string, never>;
}

/** `apiserver.config.k8s.io/v1` EncryptionConfiguration (the file of `--encryption-provider-config`). */
export interface EncryptionConfiguration {
  apiVersion: 'apiserver.config.k8s.io/v1';
  kind: 'EncryptionConfiguration';
  resources: Array<{ resources: string[]; providers: EncryptionProviderConfiguration[] }>;
}

const modes: Record<'aescbc' | 'aesgcm' | 'secretbox', { mode: AesMode; sizes: number[] }> = {
  aescbc: { mode: aesCbcMode, sizes: [16, 24, 32] },
  aesgcm: { mode: aesGcmMode, sizes: [16, 24, 32] },
  secretbox: { mode: secretboxMode, sizes: [32] },
};
const providerTypes = ['aescbc', 'aesgcm', 'secretbox', 'identity', 'kms'] as const;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates a decoded EncryptionConfiguration document. Throws one error listing every problem, worded
 * as k8s.io/apiserver's validation (`resources[0].providers[0].aescbc.keys[0].secret: Invalid value: ...`).
 */
export function parseEncryptionConfiguration(document: unknown): EncryptionConfiguration {
  const errors: string[] = [];
  if (!isRecord(document)) throw new Error('encryption provider configuration is not an object');
  if (document.kind !== 'EncryptionConfiguration' || document.apiVersion !== 'apiserver.config.k8s.io/v1') {
    throw new Error(
      `got unexpected config type: ${String(document.apiVersion)}, Kind=${String(document.kind)}; expected apiserver.config.k8s.io/v1, Kind=EncryptionConfiguration`,
    );
  }
  const resources = Array.isArray(document.resources) ? document.resources : [];
  if (resources.length === 0) errors.push('resources: Required value: at least one resource is required');
  resources.forEach((entry: unknown, index) => {
    const path = `resources[${index}]`;
    const record = isRecord(entry) ? entry : {};
    const names = Array.isArray(record.resources) ? record.resources : [];
    if (names.length === 0) errors.push(`${path}.resources: Required value: at least one resource is required`);
    names.forEach((name: unknown, nameIndex) => {
      if (typeof name !== 'string' || name === '' || name !== name.toLowerCase()) {
        errors.push(`${path}.resources[${nameIndex}]: Invalid value: ${JSON.stringify(name)}: resource name must be lowercase`);
      }
    });
    const providers = Array.isArray(record.providers) ? record.providers : [];
    if (providers.length === 0) errors.push(`${path}.providers: Required value: at least one provider is required`);
    providers.forEach((provider: unknown, providerIndex) => validateProvider(provider, `${path}.providers[${providerIndex}]`, errors));
  });
  if (errors.length > 0) throw new Error(`invalid encryption provider configuration: ${errors.join(', ')}`);
  return document as unknown as EncryptionConfiguration;
}

function validateProvider(provider: unknown, path: string, errors: string[]): void {
  const record = isRecord(provider) ? provider : {};
  const set = providerTypes.filter((type) => record[type] !== undefined && record[type] !== null);
  if (set.length !== 1) {
    errors.push(
      set.length === 0
        ? `${path}: Invalid value: ${JSON.stringify(provider)}: provider does not contain any of the expected providers: KMS, secretbox, AESGCM, AESCBC or Identity`
        : `${path}: Invalid value: ${JSON.stringify(set)}: more than one provider specified in a single element, should split into different list elements`,
    );
    return;
  }
  const type = set[0] as (typeof providerTypes)[number];
  if (type === 'identity') return;
  if (type === 'kms') {
    errors.push(`${path}.kms: Unsupported value: "kms": kapi supports the aescbc, aesgcm, secretbox and identity providers`);
    return;
  }
  const keys = isRecord(record[type]) && Array.isArray(record[type].keys) ? (record[type].keys as unknown[]) : [];
  if (keys.length === 0) errors.push(`${path}.${type}.keys: Required value: at least one key is required`);
  const seen = new Set<string>();
  keys.forEach((key: unknown, keyIndex) => {
    const keyPath = `${path}.${type}.keys[${keyIndex}]`;
    const { name, secret } = isRecord(key) ? key : {};
    if (typeof name !== 'string' || name === '') errors.push(`${keyPath}.name: Required value: key.name is a mandatory field for a key`);
    else if (name.includes(':')) errors.push(`${keyPath}.name: Invalid value: ${JSON.stringify(name)}: key name must not contain ":"`);
    else if (seen.has(name)) errors.push(`${keyPath}.name: Duplicate value: ${JSON.stringify(name)}`);
    else seen.add(name);
    if (typeof secret !== 'string' || secret === '') {
      errors.push(`${keyPath}.secret: Required value: key.secret is a mandatory field for a key`);
    } else if (!/^[A-Za-z0-9+/]*={0,2}$/.test(secret) || secret.length % 4 !== 0) {
      errors.push(`${keyPath}.secret: Invalid value: "REDACTED": secrets must be base64 encoded`);
    } else {
      const length = Buffer.from(secret, 'base64').byteLength;
      const sizes = modes[type].sizes;
      if (!sizes.includes(length)) {
        errors.push(`${keyPath}.secret: Invalid value: "REDACTED": secret is not of the expected length, got ${length}, expected one of [${sizes.join(' ')}]`);
      }
    }
  });
}

/** The transformer of one `providers` list: the first provider's first key writes, every key reads. */
export function providersTransformer(providers: readonly EncryptionProviderConfiguration[]): ValueTransformer {
  const entries: PrefixedTransformer[] = [];
  for (const provider of providers) {
    if (provider.identity) {
      entries.push({ prefix: '', transformer: identityProviderTransformer });
      continue;
    }
    for (const type of ['aescbc', 'aesgcm', 'secretbox'] as const) {
      const { mode } = modes[type];
      // libsodium's secretbox loads asynchronously; tweetnacl serves meanwhile (same bytes either way).
      if (type === 'secretbox' && provider.secretbox) void loadFastSecretbox();
      for (const key of provider[type]?.keys ?? []) {
        const secret = Buffer.from(key.secret, 'base64');
        const sealAfter = mode.sealAfter?.bind(mode);
        entries.push({
          prefix: `k8s:enc:${type}:v1:${key.name}:`,
          transformer: {
            toStorage: (data, context) => mode.seal(secret, data, additionalDataOf(mode, context)),
            fromStorage: (data, context) => ({ data: mode.open(secret, data, additionalDataOf(mode, context)), stale: false }),
          },
          ...(sealAfter
            ? { toStorageAfter: (prefix: Uint8Array, data: Uint8Array, context: TransformContext) => sealAfter(prefix, secret, data, additionalDataOf(mode, context)) }
            : {}),
        });
      }
    }
  }
  return prefixTransformer(entries);
}

/** A group and resource, as `--encryption-provider-config` names them (`secrets`, `deployments.apps`). */
export interface EncryptedGroupResource {
  group: string;
  resource: string;
}

/**
 * The transformers of an EncryptionConfiguration, per resource, swappable at run time (automatic reload):
 * {@link transformerFor} returns a transformer that always uses the current configuration. A resource
 * matches its exact name first (`secrets`, `deployments.apps`), then `*.<group>` (`*.` is the core
 * group), then `*.*`; a resource no entry names is stored as is.
 */
export class EncryptionTransformers {
  private byName = new Map<string, ValueTransformer>();

  constructor(configuration: EncryptionConfiguration) {
    this.update(configuration);
  }

  /** Replaces the configuration: later reads and writes of every resource use the new providers. */
  update(configuration: EncryptionConfiguration): void {
    const byName = new Map<string, ValueTransformer>();
    for (const entry of configuration.resources) {
      const transformer = providersTransformer(entry.providers);
      for (const name of entry.resources) if (!byName.has(name)) byName.set(name, transformer);
    }
    this.byName = byName;
  }

  /** The resource's transformer, following reloads. */
  transformerFor(groupResource: EncryptedGroupResource): ValueTransformer {
    return {
      toStorage: (data: Uint8Array, context: TransformContext): Uint8Array =>
        this.current(groupResource)?.toStorage(data, context) ?? data,
      fromStorage: (data: Uint8Array, context: TransformContext): TransformedValue =>
        this.current(groupResource)?.fromStorage(data, context) ?? identityProviderTransformer.fromStorage(data, context),
      readsStale: (data: Uint8Array): boolean => this.current(groupResource)?.readsStale?.(data) ?? false,
    };
  }

  private current({ group, resource }: EncryptedGroupResource): ValueTransformer | undefined {
    return (
      this.byName.get(group === '' ? resource : `${resource}.${group}`) ?? this.byName.get(`*.${group}`) ?? this.byName.get('*.*')
    );
  }
}
