import { describe, expect, it } from 'vitest';
import { authorizerVariable, evaluateWithAuthorizer, type CelAuthorizationCheck } from './authorizer-library.js';
import { compileAdmissionExpression } from './rule-program.js';

/** Allows `create` on pods in `default`, `get` on /healthz, and everything to one service account. */
function rules(check: CelAuthorizationCheck) {
  if (check.serviceAccount?.name === 'admin') return { decision: 'allow' as const };
  if (check.path !== undefined) return check.path === '/healthz' && check.verb === 'get' ? { decision: 'allow' as const } : { decision: 'noOpinion' as const };
  const allowed = check.group === '' && check.resource === 'pods' && check.namespace === 'default' && check.verb === 'create';
  return allowed ? { decision: 'allow' as const, reason: 'pods are fine' } : { decision: 'deny' as const, reason: 'not pods' };
}

const variables = {
  authorizer: authorizerVariable({ group: 'apps', resource: 'deployments', namespace: 'default', name: 'web' }),
};

function evaluate(expression: string): { value: boolean | string | null } | { error: string } {
  const compiled = compileAdmissionExpression(expression, true);
  if ('error' in compiled) return compiled;
  return compiled.evaluate(variables);
}

describe('the CEL authorizer library', () => {
  it('checks resources and paths for the request user, and for a service account', async () => {
    const asked: CelAuthorizationCheck[] = [];
    const authorize = (check: CelAuthorizationCheck) => {
      asked.push(check);
      return rules(check);
    };
    const run = (expression: string) => evaluateWithAuthorizer(authorize, () => evaluate(expression));
    expect(await run("authorizer.group('').resource('pods').namespace('default').check('create').allowed()")).toEqual({ value: true });
    expect(asked.at(-1)).toEqual({ group: '', resource: 'pods', namespace: 'default', verb: 'create' });
    expect(await run("authorizer.group('').resource('pods').namespace('kube-system').check('create').reason()")).toEqual({ value: 'not pods' });
    expect(await run("authorizer.path('/healthz').check('get').allowed()")).toEqual({ value: true });
    expect(await run("authorizer.path('/metrics').check('get').allowed()")).toEqual({ value: false });
    expect(await run("authorizer.serviceAccount('kube-system', 'admin').group('apps').resource('deployments').check('delete').allowed()")).toEqual({
      value: true,
    });
    expect(asked.at(-1)?.serviceAccount).toEqual({ namespace: 'kube-system', name: 'admin' });
    // requestResource: the request's own resource, to which a verb is added.
    expect(await run("authorizer.requestResource.subresource('scale').check('update').allowed()")).toEqual({ value: false });
    expect(asked.at(-1)).toEqual({ group: 'apps', resource: 'deployments', namespace: 'default', name: 'web', subresource: 'scale', verb: 'update' });
  });

  it('waits for an asynchronous authorizer and evaluates again with its answers', async () => {
    let calls = 0;
    const authorize = async (check: CelAuthorizationCheck) => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return rules(check);
    };
    const expression =
      "authorizer.group('').resource('pods').namespace('default').check('create').allowed() && !authorizer.path('/metrics').check('get').allowed()";
    expect(await evaluateWithAuthorizer(authorize, () => evaluate(expression))).toEqual({ value: true });
    // One call per distinct check, over the reruns.
    expect(calls).toBe(2);
  });

  it('reports an authorizer failure as an errored decision, and no authorizer as one', async () => {
    const failing = () => {
      throw new Error('webhook authorizer unreachable');
    };
    const expression = "authorizer.path('/x').check('get').errored() ? authorizer.path('/x').check('get').error() : 'ok'";
    expect(await evaluateWithAuthorizer(failing, () => evaluate(expression))).toEqual({ value: 'webhook authorizer unreachable' });
    expect(await evaluateWithAuthorizer(undefined, () => evaluate(expression))).toEqual({ value: 'no authorizer is available' });
  });
});
