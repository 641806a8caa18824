import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { parse } from 'yaml';
import { EncryptionTransformers, parseEncryptionConfiguration, type EncryptionConfiguration } from '@kapi/storage';

/** Encryption at rest from `--encryption-provider-config`, and what stops its file watch. */
export interface EncryptionAtRest {
  transformers: EncryptionTransformers;
  stop(): void;
}

/** How often the configuration file is checked with `--encryption-provider-config-automatic-reload`. */
const reloadPollIntervalMs = 1000;

/** Reads and validates an EncryptionConfiguration file (YAML or JSON). */
export function loadEncryptionConfiguration(path: string): EncryptionConfiguration {
  let document: unknown;
  try {
    document = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`error reading encryption provider configuration file ${JSON.stringify(path)}: ${(error as Error).message}`, { cause: error });
  }
  return parseEncryptionConfiguration(document);
}

/**
 * Loads `--encryption-provider-config`; with automatic reload, re-reads the file when it changes and
 * swaps the providers of every store (a file that does not load keeps the previous configuration, as
 * upstream's reload controller does).
 */
export function startEncryptionAtRest(
  path: string,
  automaticReload: boolean,
  log: (message: string) => void,
): EncryptionAtRest {
  const transformers = new EncryptionTransformers(loadEncryptionConfiguration(path));
  log(`encryption at rest: providers from ${path}${automaticReload ? ' (reloaded when the file changes)' : ''}`);
  if (!automaticReload) return { transformers, stop: () => undefined };
  let loaded = readFileSync(path, 'utf8');
  const listener = () => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return;
    }
    if (text === loaded) return;
    try {
      transformers.update(loadEncryptionConfiguration(path));
      loaded = text;
      log(`encryption at rest: reloaded providers from ${path}`);
    } catch (error) {
      log(`encryption at rest: keeping the previous providers: ${(error as Error).message}`);
    }
  };
  watchFile(path, { interval: reloadPollIntervalMs, persistent: false }, listener);
  return { transformers, stop: () => unwatchFile(path, listener) };
}
