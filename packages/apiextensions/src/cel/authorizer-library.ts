import { CelScalar, celMethod, type CelFunc, type CelInput } from '@bufbuild/cel';
import { opaqueValue, requireOpaque } from './opaque-value.js';

const { DYN, STRING, BOOL } = CelScalar;

/**
 * One authorization check an admission expression asks through `authorizer` (upstream's CEL authz
 * library): a resource check (`group`, `resource`, ...) or a path check (`path`), for the request's user
 * or, after `serviceAccount(ns, name)`, for that service account.
 */
export interface CelAuthorizationCheck {
  verb: string;
  /** The service account the check is for, instead of the request's user. */
  serviceAccount?: { namespace: string; name: string };
  /** A non-resource check: the URL path. */
  path?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** An authorizer's answer to a {@link CelAuthorizationCheck}. */
export interface CelAuthorizationDecision {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason?: string;
}

/** What `authorizer` asks: the server's authorizer, for the request's user. */
export type CelAuthorizer = (check: CelAuthorizationCheck) => CelAuthorizationDecision | Promise<CelAuthorizationDecision>;

type Decided = CelAuthorizationDecision | { error: string };

/** The decisions of one evaluation (kept over its reruns) and those still awaited. */
interface Session {
  authorize: CelAuthorizer;
  decisions: Map<string, Decided>;
  pending: Array<Promise<void>>;
}

/** The evaluation running now (CEL evaluates synchronously, so one at a time). */
let session: Session | undefined;

type Check = Omit<CelAuthorizationCheck, 'verb'>;

const encode = (type: string, value: object): CelInput => opaqueValue(type, JSON.stringify(value));
const decode = <T>(type: string, value: unknown, operation: string): T => JSON.parse(requireOpaque(type, value as never, operation)) as T;

function decide(check: CelAuthorizationCheck): Decided {
  const key = JSON.stringify(check);
  const known = session?.decisions.get(key);
  if (known) return known;
  if (!session) return { error: 'no authorizer is available' };
  const { decisions } = session;
  try {
    const answer = session.authorize(check);
    if (!(answer instanceof Promise)) {
      decisions.set(key, answer);
      return answer;
    }
    session.pending.push(
      answer.then(
        (decision) => void decisions.set(key, decision),
        (error: unknown) => void decisions.set(key, { error: error instanceof Error ? error.message : String(error) }),
      ),
    );
  } catch (error) {
    const failed = { error: error instanceof Error ? error.message : String(error) };
    decisions.set(key, failed);
    return failed;
  }
  // Evaluated again once the decision is in (see evaluateWithAuthorizer).
  throw new Error('authorization decision pending');
}

/**
 * Runs `evaluate` (synchronous CEL evaluations) with `authorizer` answering the checks its expressions
 * make. A check the authorizer answers asynchronously fails that run; once the answers are in, `evaluate`
 * runs again with them (CEL is pure, so a rerun sees the same inputs), until no check waits.
 */
export async function evaluateWithAuthorizer<T>(authorizer: CelAuthorizer | undefined, evaluate: () => T): Promise<T> {
  const decisions = new Map<string, Decided>();
  for (let round = 0; ; round++) {
    const previous = session;
    const current: Session | undefined = authorizer ? { authorize: authorizer, decisions, pending: [] } : undefined;
    session = current;
    let result: T;
    try {
      result = evaluate();
    } finally {
      session = previous;
    }
    if (!current?.pending.length || round >= 8) return result;
    await Promise.all(current.pending);
  }
}

/**
 * The `authorizer` variable of a request: `authorizer.requestResource` is a resource check of the
 * request's own resource (as upstream: group, resource, subresource, namespace and name).
 */
export function authorizerVariable(request: Omit<Check, 'path' | 'serviceAccount'>): CelInput {
  return {
    ...(encode('authorizer', {}) as Record<string, CelInput>),
    requestResource: encode('resourcecheck', request),
  } as CelInput;
}

const setter = (field: 'subresource' | 'namespace' | 'name'): CelFunc =>
  celMethod(field, DYN, [STRING], DYN, function (value) {
    return encode('resourcecheck', { ...decode<Check>('resourcecheck', this, field), [field]: value });
  });

const decisionOf = (value: unknown, operation: string) => decode<Decided>('decision', value, operation);

/**
 * Upstream's CEL authz library: `authorizer.group(g).resource(r)[.subresource(s)][.namespace(n)][.name(n)].check(verb)`,
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)` and `authorizer.requestResource`;
 * a decision's `allowed()`, `reason()`, `errored()` and `error()`.
 */
export const authorizerLibrary: CelFunc[] = [
  celMethod('group', DYN, [STRING], DYN, function (group) {
    return encode('groupcheck', { ...decode<Check>('authorizer', this, 'group'), group });
  }),
  celMethod('resource', DYN, [STRING], DYN, function (resource) {
    return encode('resourcecheck', { ...decode<Check>('groupcheck', this, 'resource'), resource });
  }),
  setter('subresource'),
  setter('namespace'),
  setter('name'),
  celMethod('path', DYN, [STRING], DYN, function (path) {
    return encode('pathcheck', { ...decode<Check>('authorizer', this, 'path'), path });
  }),
  celMethod('serviceAccount', DYN, [STRING, STRING], DYN, function (namespace, name) {
    return encode('authorizer', { ...decode<Check>('authorizer', this, 'serviceAccount'), serviceAccount: { namespace, name } });
  }),
  celMethod('check', DYN, [STRING], DYN, function (verb) {
    let check: Check;
    try {
      check = decode<Check>('resourcecheck', this, 'check');
    } catch {
      check = decode<Check>('pathcheck', this, 'check');
    }
    return encode('decision', decide({ ...check, verb }));
  }),
  celMethod('allowed', DYN, [], BOOL, function () {
    const decided = decisionOf(this, 'allowed');
    return 'decision' in decided && decided.decision === 'allow';
  }),
  celMethod('reason', DYN, [], STRING, function () {
    const decided = decisionOf(this, 'reason');
    return 'decision' in decided ? (decided.reason ?? '') : '';
  }),
  celMethod('errored', DYN, [], BOOL, function () {
    return 'error' in decisionOf(this, 'errored');
  }),
  celMethod('error', DYN, [], STRING, function () {
    const decided = decisionOf(this, 'error');
    return 'error' in decided ? decided.error : '';
  }),
];
