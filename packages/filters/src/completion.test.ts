import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { afterHandling, type CompletionStep } from './completion.js';
import { buildHandlerChain, type Filter, type Handler } from './handler.js';
import { withMaxInFlight } from './with-max-in-flight.js';
import { withPanicRecovery } from './with-panic-recovery.js';
import { withRequestInfo } from './with-request-info.js';
import { withServerErrorLog } from './with-server-error-log.js';

function exchange(path = '/api/v1/namespaces/default/configmaps'): [IncomingMessage, ServerResponse] {
  const request = new IncomingMessage(new Socket());
  request.method = 'GET';
  request.url = path;
  request.headers = {};
  return [request, new ServerResponse(request)];
}

/** A filter that records `name` in `order` when the handling inside it settles. */
function recording(name: string, order: string[]): Filter {
  const step: CompletionStep = (_request, _response, outcome) => {
    order.push(`${name}:${outcome.failed ? 'failed' : 'ok'}`);
  };
  return (next) => (request, response) => {
    const work = next(request, response);
    return work ? afterHandling(request, response, work, step) : undefined;
  };
}

describe('afterHandling', () => {
  it('runs the steps of all filters innermost first, on one promise they all return', async () => {
    const order: string[] = [];
    let release!: () => void;
    const returned: Array<void | Promise<void>> = [];
    const keep = (filter: Filter): Filter => (next) => {
      const handler = filter(next);
      return (request, response) => {
        const work = handler(request, response);
        returned.push(work);
        return work;
      };
    };
    const handler = buildHandlerChain(
      ['outer', 'fifth', 'fourth', 'third', 'second', 'inner'].map((name) => keep(recording(name, order))),
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    const [request, response] = exchange();
    const work = handler(request, response);
    // One promise for the six filters: a long-running request holds no promise per filter.
    expect(new Set(returned).size).toBe(1);
    expect(order).toEqual([]);
    release();
    await work;
    expect(order).toEqual(['inner:ok', 'second:ok', 'third:ok', 'fourth:ok', 'fifth:ok', 'outer:ok']);
  });

  it('lets a step answer a failure for the steps after it, and a throwing step fail them', async () => {
    const order: string[] = [];
    const answer: Filter = (next) => (request, response) =>
      afterHandling(request, response, next(request, response) as Promise<void>, (_request, _response, outcome) => {
        outcome.failed = false;
      });
    const explode: Filter = (next) => (request, response) =>
      afterHandling(request, response, next(request, response) as Promise<void>, () => {
        throw new Error('step failed');
      });
    const failing: Handler = () => Promise.reject(new Error('handler failed'));
    const [request, response] = exchange();
    await buildHandlerChain([recording('outer', order), answer], failing)(request, response);
    expect(order).toEqual(['outer:ok']);
    const [second, secondResponse] = exchange();
    await expect(buildHandlerChain([recording('outer', order), explode], async () => {})(second, secondResponse)).rejects.toThrow('step failed');
    expect(order).toEqual(['outer:ok', 'outer:failed']);
  });

  it('starts a new reaction around a promise an inner filter did not return from afterHandling', async () => {
    const order: string[] = [];
    // As the timeout filter does: its own promise around the handling inside it.
    const wrapping: Filter = (next) => (request, response) => Promise.resolve(next(request, response)).then(() => {
      order.push('wrapper');
    });
    const [request, response] = exchange();
    await buildHandlerChain([recording('outer', order), wrapping, recording('inner', order)], async () => {})(request, response);
    expect(order).toEqual(['inner:ok', 'wrapper', 'outer:ok']);
  });

  it('keeps the built-in filters working through it: panic recovery answers, the 5xx log and max-in-flight see the end', async () => {
    const lines: string[] = [];
    const maxInFlight = withMaxInFlight({ maxRequestsInFlight: 10, exemptGroups: [] });
    let fail!: (error: Error) => void;
    let inner: void | Promise<void> = undefined;
    const innermost: Filter = (next) => (request, response) => (inner = recording('inner', [])(next)(request, response));
    const handler = buildHandlerChain(
      [withServerErrorLog({ write: (line) => lines.push(line) }), withPanicRecovery(), withRequestInfo(), maxInFlight, innermost],
      () => new Promise<void>((_resolve, reject) => (fail = reject)),
    );
    const [request, response] = exchange();
    const work = handler(request, response);
    // They add steps to the innermost reaction instead of chaining promises of their own.
    expect(work).toBe(inner);
    expect(maxInFlight.inFlight().readOnly).toBe(1);
    fail(new Error('late failure'));
    await work;
    expect(response.statusCode).toBe(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('late failure');
    expect(maxInFlight.inFlight().readOnly).toBe(0);
  });
});
