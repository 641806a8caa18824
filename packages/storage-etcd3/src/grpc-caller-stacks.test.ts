import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const module = fileURLToPath(new URL('./grpc-caller-stacks.ts', import.meta.url));

interface CallOutcome {
  code: number;
  /** What the failed call's error says after "for call at". */
  callerStack: string;
  stackTraceLimit: number;
  /** The call method was the same function before and after the second install. */
  wrappedOnce: boolean;
}

/**
 * A Range call through etcd3's own service client to a port nothing listens on (it fails UNAVAILABLE), in
 * a child process, after skipGrpcCallerStacks() when `skip`, twice when `twice` (installing it twice must
 * not wrap twice).
 */
function failedCall(skip: boolean, twice = false): CallOutcome {
  const script = `
    import { createRequire } from 'node:module';
    import net from 'node:net';
    const { skipGrpcCallerStacks } = await import(${JSON.stringify(module)});
    const fromHere = createRequire(${JSON.stringify(module)});
    const fromEtcd3 = createRequire(fromHere.resolve('etcd3'));
    const grpc = fromEtcd3('@grpc/grpc-js');
    const { Host } = fromEtcd3('./connection-pool');
    if (${String(skip)}) skipGrpcCallerStacks();
    const installed = Host.prototype.getServiceClient;
    if (${String(twice)}) skipGrpcCallerStacks();
    const wrappedOnce = installed === Host.prototype.getServiceClient;
    const probe = net.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => probe.once('listening', resolve));
    const port = probe.address().port;
    await new Promise((resolve) => probe.close(resolve));
    // As etcd3 makes its calls: a service client of a host, its lower-case method.
    const host = new Host('127.0.0.1:' + port, grpc.credentials.createInsecure(), {});
    const client = host.getServiceClient('KV');
    if (host.getServiceClient('KV') !== client) throw new Error('the service client is not cached');
    const error = await new Promise((resolve) => client.range({ key: Buffer.from('a') }, (failure) => resolve(failure)));
    host.close();
    console.log(JSON.stringify({ code: error.code, callerStack: error.stack.split('for call at\\n')[1], stackTraceLimit: Error.stackTraceLimit, wrappedOnce }));
  `;
  const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').at(-1) ?? '') as CallOutcome;
}

describe('skipGrpcCallerStacks', () => {
  it('grpc-js calls start without capturing the caller’s stack; a failed call still reports its status', () => {
    const stock = failedCall(false);
    expect(stock.code).toBe(14);
    expect(stock.callerStack).toMatch(/^\s+at /);

    const skipped = failedCall(true);
    expect(skipped.code).toBe(14);
    expect(skipped.callerStack).toBe('no stack trace available');
    expect(skipped.stackTraceLimit).toBe(stock.stackTraceLimit);
  });

  it('installing it twice wraps the calls once', () => {
    const twice = failedCall(true, true);
    expect(twice.wrappedOnce).toBe(true);
    expect(twice.callerStack).toBe('no stack trace available');
  });
});
