#!/usr/bin/env node
import { resolve } from 'node:path';
import { runServerCommand, tuneGarbageCollector } from '@kapi/server';
import { startAggregatedServer } from './aggregated-server.js';
import { helpText, parseOptions } from './options.js';

runServerCommand({
  name: 'aggregated-server',
  parseOptions,
  helpText,
  async start(options, log) {
    options.dataDir = resolve(options.dataDir);
    tuneGarbageCollector(options.gcHeapGrowthPercent);
    const running = await startAggregatedServer(options);
    log(`storage: ${running.storage}`);
    log(`serving on ${running.url}`);
    if (running.identity) log(`identity lease and StorageVersions published as ${running.identity}`);
    if (options.register) log(`registered APIServices v1beta1/v1alpha1.wardle.example.com -> service ${options.serviceNamespace}/${options.serviceName}`);
    return running;
  },
});
