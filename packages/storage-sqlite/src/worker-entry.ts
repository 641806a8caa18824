import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker on one of this package's worker entries (`name`, without extension): the built
 * `dist/<name>.js` beside this module or, when running from the TypeScript sources (the workspace's
 * tests), `src/<name>.ts` loaded through tsx.
 */
export function startWorker(name: string, workerData: unknown): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), { workerData });
  const entry = new URL(`./${name}.ts`, here).href;
  const tsx = createRequire(here).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs');
  const loader = `import(${JSON.stringify(new URL(`file://${tsx}`).href)}).then((tsx) => tsx.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(entry)}))`;
  return new Worker(loader, { eval: true, workerData });
}
