#!/usr/bin/env node
import { resolve } from 'node:path';
import { startAggregatedServer } from './aggregated-server.js';
import { helpText, parseOptions, type AggregatedServerOptions } from './options.js';

const log = (message: string) => console.log(`[aggregated-server] ${message}`);

async function main(): Promise<void> {
  let options: AggregatedServerOptions;
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
  const running = await startAggregatedServer(options);
  log(`storage: ${running.storage}`);
  log(`serving on ${running.url}`);
  if (running.identity) log(`identity lease and StorageVersions published as ${running.identity}`);
  if (options.register) log(`registered APIServices v1beta1/v1alpha1.wardle.example.com -> service ${options.serviceNamespace}/${options.serviceName}`);
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
  console.error(`[aggregated-server] fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
