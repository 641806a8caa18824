import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestContext } from '@kapi/filters';
import { requestPath, requestQuery, sendBody, type PathHandler } from '../discovery/http-response.js';

/** The three health endpoints of k8s.io/apiserver. */
export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

/** A health check: resolves when healthy, throws (or rejects) with the reason when not. */
export type HealthCheck = () => void | Promise<void>;

/** Which endpoints a check is listed under; each defaults to true. */
export interface HealthCheckEndpoints {
  healthz?: boolean;
  livez?: boolean;
  readyz?: boolean;
}

/** What a post-start hook receives. */
export interface PostStartHookContext {
  /** Aborted when the server stops; long-running hook work should end then. */
  signal: AbortSignal;
}

/** A post-start hook: runs once after the server starts listening. Its health check passes once it resolves. */
export type PostStartHook<TContext extends PostStartHookContext = PostStartHookContext> = (context: TContext) => Promise<void>;

/** The outcome of one check in one run of an endpoint. */
export interface HealthCheckResult {
  name: string;
  healthy: boolean;
  excluded: boolean;
  /** The failure reason (never shown on the aggregate endpoints, as upstream). */
  error?: string;
}

/** Options of a {@link HealthRegistry}. */
export interface HealthRegistryOptions {
  /** Called after each evaluated check (for the `kapi_health_check` gauge). */
  onResult?: (name: string, endpoint: HealthEndpoint, healthy: boolean) => void;
  /** The `log` check; default: healthy unless stderr has been blocked (needing drain) for a minute. */
  logCheck?: HealthCheck;
}

interface RegisteredCheck {
  name: string;
  check: HealthCheck;
  endpoints: Required<HealthCheckEndpoints>;
}

/**
 * Health checks served on `/healthz`, `/livez` and `/readyz` with upstream's exact text formats
 * (k8s.io/apiserver pkg/server/healthz): `ok`, `?verbose`, `?exclude=<name>`, `/<endpoint>/<check>`.
 * `ping` and `log` are built in; `readyz` also lists `shutdown`, which fails after {@link setShuttingDown}.
 */
export class HealthRegistry<TContext extends PostStartHookContext = PostStartHookContext> {
  private readonly checks: RegisteredCheck[] = [];
  private readonly hooks = new Map<string, { hook: PostStartHook<TContext>; done: boolean; error?: string }>();
  private hooksStarted = false;
  private shuttingDown = false;
  private readonly onResult: HealthRegistryOptions['onResult'];

  constructor(options: HealthRegistryOptions = {}) {
    this.onResult = options.onResult;
    this.addCheck('ping', () => {});
    this.addCheck('log', options.logCheck ?? stderrNotBlocked());
  }

  /** Adds a named check to the chosen endpoints (all three by default). Names are unique. */
  addCheck(name: string, check: HealthCheck, on: HealthCheckEndpoints = {}): void {
    if (!name || name.includes('?')) throw new Error(`invalid health check name ${JSON.stringify(name)}`);
    if (name === 'shutdown' || this.checks.some((existing) => existing.name === name)) {
      throw new Error(`unable to add health check ${JSON.stringify(name)}: a check with that name is already registered`);
    }
    this.checks.push({
      name,
      check,
      endpoints: { healthz: on.healthz ?? true, livez: on.livez ?? true, readyz: on.readyz ?? true },
    });
  }

  /**
   * Registers a post-start hook and its check `poststarthook/<name>`, which fails with `not finished`
   * until the hook resolves (upstream pkg/server/hooks.go).
   */
  addPostStartHook(name: string, hook: PostStartHook<TContext>): void {
    if (this.hooksStarted) throw new Error(`unable to add ${JSON.stringify(name)} because PostStartHooks have already been executed`);
    if (this.hooks.has(name)) throw new Error(`unable to add ${JSON.stringify(name)} because it was already registered`);
    const state: { hook: PostStartHook<TContext>; done: boolean; error?: string } = { hook, done: false };
    this.hooks.set(name, state);
    this.addCheck(`poststarthook/${name}`, () => {
      if (!state.done) throw new Error('not finished');
    });
  }

  /** Names of the registered post-start hooks, in registration order. */
  postStartHookNames(): string[] {
    return [...this.hooks.keys()];
  }

  /**
   * Runs every post-start hook concurrently. Resolves when all have finished; rejects with
   * `PostStartHook "<name>" failed: <error>` on the first failure (upstream then exits the process).
   */
  async runPostStartHooks(context: TContext): Promise<void> {
    if (this.hooksStarted) throw new Error('PostStartHooks have already been executed');
    this.hooksStarted = true;
    await Promise.all(
      [...this.hooks].map(async ([name, state]) => {
        try {
          await state.hook(context);
          state.done = true;
        } catch (error) {
          state.error = errorText(error);
          throw new Error(`PostStartHook ${JSON.stringify(name)} failed: ${state.error}`, { cause: error });
        }
      }),
    );
  }

  /** Marks the server as shutting down: readyz's `shutdown` check fails from now on. */
  setShuttingDown(): void {
    this.shuttingDown = true;
  }

  /** The checks of one endpoint, in the order they are reported. */
  checkNames(endpoint: HealthEndpoint): string[] {
    return this.checksOf(endpoint).map((check) => check.name);
  }

  /** Runs one endpoint's checks (all concurrently), skipping `exclude`d names. */
  async run(endpoint: HealthEndpoint, exclude: Iterable<string> = []): Promise<HealthCheckResult[]> {
    const excluded = new Set(exclude);
    return Promise.all(
      this.checksOf(endpoint).map(async (check): Promise<HealthCheckResult> => {
        if (excluded.has(check.name)) return { name: check.name, healthy: true, excluded: true };
        const error = await evaluate(check.check);
        this.onResult?.(check.name, endpoint, error === undefined);
        return error === undefined
          ? { name: check.name, healthy: true, excluded: false }
          : { name: check.name, healthy: false, excluded: false, error };
      }),
    );
  }

  /** Serves `/healthz`, `/livez`, `/readyz` and `/<endpoint>/<check>`; returns false for other paths. */
  handler(): (request: IncomingMessage, response: ServerResponse) => boolean {
    const handle: PathHandler = (request, response) => {
      const path = requestPath(request);
      const match = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
      if (!match) return false;
      const endpoint = match[1] as HealthEndpoint;
      const checkName = match[2];
      if (checkName !== undefined) {
        const check = this.checksOf(endpoint).find((candidate) => candidate.name === checkName);
        if (!check) return false;
        void this.serveOne(request, response, endpoint, check);
        return true;
      }
      void this.serveRoot(request, response, endpoint);
      return true;
    };
    return handle;
  }

  private checksOf(endpoint: HealthEndpoint): RegisteredCheck[] {
    const list = this.checks.filter((check) => check.endpoints[endpoint]);
    if (endpoint === 'readyz') {
      list.push({
        name: 'shutdown',
        check: () => {
          if (this.shuttingDown) throw new Error('process is shutting down');
        },
        endpoints: { healthz: false, livez: false, readyz: true },
      });
    }
    return list;
  }

  private async serveOne(request: IncomingMessage, response: ServerResponse, endpoint: HealthEndpoint, check: RegisteredCheck) {
    const error = await evaluate(check.check);
    this.onResult?.(check.name, endpoint, error === undefined);
    if (error === undefined) sendText(request, response, 200, 'ok');
    else {
      requestContext(request).error = `${endpoint} check ${check.name} failed: ${error}`;
      sendText(request, response, 500, `internal server error: ${error}\n`);
    }
  }

  private async serveRoot(request: IncomingMessage, response: ServerResponse, endpoint: HealthEndpoint) {
    const query = requestQuery(request);
    const exclude = new Set(query.getAll('exclude'));
    const results = await this.run(endpoint, exclude);
    let output = '';
    for (const result of results) {
      exclude.delete(result.name);
      if (result.excluded) output += `[+]${result.name} excluded: ok\n`;
      else if (result.healthy) output += `[+]${result.name} ok\n`;
      else output += `[-]${result.name} failed: reason withheld\n`;
    }
    if (exclude.size > 0) {
      const names = [...exclude].sort().map((name) => JSON.stringify(name)).join(', ');
      output += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
    }
    const failed = results.filter((result) => !result.healthy);
    if (failed.length > 0) {
      // The client sees reasons withheld (as upstream); the server-side 5xx log gets them, without a stack.
      const reasons = failed.map((result) => `${result.name}: ${result.error ?? 'failed'}`).join('; ');
      requestContext(request).error = `${endpoint} check failed: ${reasons}`;
      sendText(request, response, 500, `${output}${endpoint} check failed\n`);
      return;
    }
    sendText(request, response, 200, query.has('verbose') ? `${output}${endpoint} check passed\n` : 'ok');
  }
}

/**
 * Wraps a check so it fails with `<name> check timed out after <ms>ms` when it does not settle in time
 * (upstream's etcd check has a 2s timeout). The wrapped check keeps running in the background.
 */
export function withCheckTimeout(name: string, check: HealthCheck, timeoutMs: number): HealthCheck {
  return () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} check timed out after ${timeoutMs}ms`)), timeoutMs);
      Promise.resolve()
        .then(check)
        .then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          (error: unknown) => {
            clearTimeout(timer);
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
    });
}

async function evaluate(check: HealthCheck): Promise<string | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    return errorText(error);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sendText(request: IncomingMessage, response: ServerResponse, code: number, body: string): void {
  sendBody(request, response, code, body, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
  });
}

/** The default `log` check: fails when stderr has been unable to drain for a minute. */
function stderrNotBlocked(now: () => number = Date.now): HealthCheck {
  let blockedSince: number | undefined;
  return () => {
    if (!process.stderr.writableNeedDrain) {
      blockedSince = undefined;
      return;
    }
    blockedSince ??= now();
    if (now() - blockedSince > 60_000) throw new Error('logging blocked');
  };
}
