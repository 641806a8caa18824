import { createRequire } from 'node:module';

const installed = Symbol.for('kapi.storage-etcd3.skip-grpc-caller-stacks');

type Method = ((this: unknown, ...args: unknown[]) => unknown) & Record<string, unknown>;
type Prototype = Record<string | symbol, unknown>;

/** A module of the `etcd3` package itself (the copy `@kapi/storage-etcd3` depends on). */
function etcd3Module<T>(path: string): T {
  const fromHere = createRequire(import.meta.url);
  return createRequire(fromHere.resolve('etcd3'))(path) as T;
}

/** `method`, started with stack traces captured empty (its `path`, `requestStream`... attributes kept). */
function withoutCallerStack(method: Method): Method {
  const start = function startWithoutCallerStack(this: unknown, ...args: unknown[]) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return method.apply(this, args);
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
  return Object.assign(start, method) as Method;
}

/** Wraps every method of one generated grpc-js service class (each is listed in its static `service`). */
function skipInService(prototype: Prototype): void {
  if (Object.hasOwn(prototype, installed)) return;
  prototype[installed] = true;
  const methods = (prototype.constructor as { service?: Record<string, { originalName?: string }> }).service ?? {};
  for (const [name, attributes] of Object.entries(methods)) {
    const wrapped = withoutCallerStack(prototype[name] as Method);
    prototype[name] = wrapped;
    if (attributes.originalName) prototype[attributes.originalName] = wrapped;
  }
}

/**
 * Makes etcd calls cheaper: grpc-js captures a stack trace (`new Error()`) at the start of every call, to
 * append to the error if the call fails. From the optimised code of a busy server that capture cost
 * ~28 µs per call here (CPU profile of a migration on etcd: `makeUnaryRequest` self time 33.7 → 8.6 µs per
 * object), more than the rest of the call's set-up. While etcd3 starts a call, stack traces are captured
 * empty: a failed call's error keeps its gRPC code, details and metadata, and says "for call at" with no
 * frames after it. Applies to the service clients of the `etcd3` package this one depends on, once per
 * process. `Etcd3Backend.connect` calls it unless told not to.
 */
export function skipGrpcCallerStacks(): void {
  const { Host } = etcd3Module<{ Host: { prototype: Prototype } }>('./connection-pool');
  const prototype = Host.prototype;
  if (prototype[installed]) return;
  prototype[installed] = true;
  const getServiceClient = prototype.getServiceClient as (this: unknown, name: string) => object;
  prototype.getServiceClient = function getServiceClientWithoutCallerStacks(this: unknown, name: string) {
    const service = getServiceClient.call(this, name);
    skipInService(Object.getPrototypeOf(service) as Prototype);
    return service;
  };
}
