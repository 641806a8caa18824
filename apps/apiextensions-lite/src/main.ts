#!/usr/bin/env node
import { resolve } from 'node:path';
import { helpText, parseOptions } from '@kapi/kube-apiserver-lite';
import { startAPIExtensionsLite } from './apiextensions-lite.js';

const log = (message: string) => console.log(`[apiextensions-lite] ${message}`);

async function main(): Promise<void> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n\n${helpText()}`);
    process.exit(2);
  }
  if (options.help) {
    console.log(helpText());
    return;
  }
  options.dataDir = resolve(options.dataDir);
  const running = await startAPIExtensionsLite(options);
  log(`serving on ${running.url}`);
  log(`admin kubeconfig: ${resolve(running.kubeconfigPath)}`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    running
      .stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        console.error(error);
        process.exit(1);
      });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(`[apiextensions-lite] fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
