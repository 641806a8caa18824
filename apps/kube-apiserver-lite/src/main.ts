#!/usr/bin/env node
import { resolve } from 'node:path';
import { startControlPlane } from './control-plane.js';
import { helpText, parseOptions } from './options.js';

const log = (message: string) => console.log(`[kube-apiserver-lite] ${message}`);

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
  log(`starting (identity host ${options.hostnameOverride}, data dir ${options.dataDir})`);
  const running = await startControlPlane(options, log);
  const kubeconfig = resolve(running.kubeconfigPath);
  log(`serving on ${running.url} as ${running.identity}`);
  log(`admin kubeconfig: ${kubeconfig}`);
  if (options.console) log(`console: ${running.url}/console/ (same credentials as the API; --console=false turns it off)`);
  console.log(`\nUse it with kubectl:\n\n  kubectl --kubeconfig ${kubeconfig} get namespaces\n\nor: export KUBECONFIG=${kubeconfig}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down gracefully`);
    running
      .stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        console.error(error);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(`[kube-apiserver-lite] fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
