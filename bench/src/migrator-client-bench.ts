import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient } from '@kapi/client';
import { generateCertificateAuthority, issueServingCertificate } from '@kapi/server';

/**
 * `tsx src/migrator-client-bench.ts [objects] [writesInFlight] [runs] [patchDelayMs]`: the migrator's own CPU per object,
 * apart from the apiserver's: runMigration over HTTP/2 against a stand-in server in a child process
 * (migrator-client-server.ts: metadata pages, a canned 2.3 KB answer to each PATCH, after `patchDelayMs`). Prints objects/s
 * and this process's CPU µs per object for each run after a warm-up run.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
// The migrator's sources (KAPI_BENCH_MIGRATOR_SRC: another copy of packages/migrator/src, for A/B runs);
// Http2Transport is not exported by @kapi/migrator.
const source = process.env.KAPI_BENCH_MIGRATOR_SRC ?? join(here, '../../packages/migrator/src');
type Runner = typeof import('../../packages/migrator/src/migration-runner.js');
type Transport = typeof import('../../packages/migrator/src/object-transport.js');
type Bucket = typeof import('../../packages/migrator/src/token-bucket.js');
const { runMigration } = (await import(join(source, 'migration-runner.ts'))) as Runner;
const { Http2Transport } = (await import(join(source, 'object-transport.ts'))) as Transport;
const { TokenBucket } = (await import(join(source, 'token-bucket.ts'))) as Bucket;
const [objects = 10_000, writesInFlight = 16, runs = 3, patchDelayMs = 0] = process.argv.slice(2).map(Number);
const ca = generateCertificateAuthority();
const serving = issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
const child = spawn(process.execPath, ['--conditions=@kapi/source', '--import', 'tsx', join(here, 'migrator-client-server.ts'), String(objects), String(patchDelayMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
child.stdin.end(JSON.stringify({ cert: serving.certificatePem, key: serving.privateKeyPem }));
const port = await new Promise<number>((resolve) => {
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const match = /port (\d+)/.exec(output);
    if (match) resolve(Number(match[1]));
  });
});
const rest = new RestClient({ server: `https://127.0.0.1:${port}`, ca: ca.certificatePem, token: 'bench-token' });
const transport = new Http2Transport(rest);
try {
  for (let run = 0; run <= runs; run++) {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    await runMigration('m', {
      rest,
      transport,
      limiter: new TokenBucket(0, 1),
      backoff: { initialMs: 10, maxMs: 100 },
      pageSize: 500,
      writesInFlight,
      signal: new AbortController().signal,
    });
    const used = process.cpuUsage(cpu);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(`${run === 0 ? 'warm-up' : `run ${run}`}: ${(objects / seconds).toFixed(0)} objects/s, migrator CPU ${((used.user + used.system) / objects).toFixed(1)} µs per object`);
  }
} finally {
  transport.close();
  rest.close();
  child.kill();
}
