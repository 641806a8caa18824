#!/usr/bin/env node
import { resolve } from 'node:path';
import { runServerCommand, tuneGarbageCollector } from '@kapi/server';
import { startControlPlane } from './control-plane.js';
import { helpText, parseOptions } from './options.js';

runServerCommand({
  name: 'kube-apiserver-lite',
  parseOptions,
  helpText,
  logShutdown: true,
  async start(options, log) {
    options.dataDir = resolve(options.dataDir);
    tuneGarbageCollector(options.gcHeapGrowthPercent);
    log(`starting (identity host ${options.hostnameOverride}, data dir ${options.dataDir})`);
    const running = await startControlPlane(options, log);
    const kubeconfig = resolve(running.kubeconfigPath);
    log(`serving on ${running.url} as ${running.identity}`);
    log(`admin kubeconfig: ${kubeconfig}`);
    if (options.console) log(`console: ${running.url}/console/ (same credentials as the API; --console=false turns it off)`);
    console.log(`\nUse it with kubectl:\n\n  kubectl --kubeconfig ${kubeconfig} get namespaces\n\nor: export KUBECONFIG=${kubeconfig}\n`);
    return running;
  },
});
