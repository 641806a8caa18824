import type { IncomingMessage, ServerResponse } from 'node:http';
import { contextOf } from './handler.js';

/** How a request's handling ended, as each {@link CompletionStep} sees it (and may change it). */
export interface Outcome {
  /** True while the handling has failed with `error` and no step has answered the failure yet. */
  failed: boolean;
  error: unknown;
}

/**
 * What one filter does once the handling inside it has settled (a `.then` of that filter): it may
 * answer a failure (set `failed` to false) or fail itself (throw). Made once per filter, not per request:
 * it gets the request and response.
 */
export type CompletionStep = (request: IncomingMessage, response: ServerResponse, outcome: Outcome) => void;

/**
 * The one reaction to a request's handling promise that the filters around it share: their steps, in
 * the order they were added (innermost filter first, as they return), then the promise the filters return.
 */
export class Completion {
  readonly promise: Promise<void>;
  settled = false;
  // The steps in the order added, in fields: the server's chain adds four to a watch (an array would
  // grow to 17 slots on its first push). Any further ones go to `more`.
  private first: CompletionStep | undefined;
  private second: CompletionStep | undefined;
  private third: CompletionStep | undefined;
  private fourth: CompletionStep | undefined;
  private more: CompletionStep[] | undefined;

  constructor(
    private readonly request: IncomingMessage,
    private readonly response: ServerResponse,
    work: Promise<void>,
  ) {
    this.promise = work.then(
      () => this.settle(false, undefined),
      (error: unknown) => this.settle(true, error),
    );
  }

  /** Adds a step, run after those added before it. */
  add(step: CompletionStep): void {
    if (!this.first) this.first = step;
    else if (!this.second) this.second = step;
    else if (!this.third) this.third = step;
    else if (!this.fourth) this.fourth = step;
    else (this.more ??= []).push(step);
  }

  private settle(failed: boolean, error: unknown): void {
    this.settled = true;
    const outcome: Outcome = { failed, error };
    this.run(this.first, outcome);
    this.run(this.second, outcome);
    this.run(this.third, outcome);
    this.run(this.fourth, outcome);
    if (this.more) for (const step of this.more) this.run(step, outcome);
    if (outcome.failed) throw outcome.error;
  }

  private run(step: CompletionStep | undefined, outcome: Outcome): void {
    if (!step) return;
    try {
      step(this.request, this.response, outcome);
    } catch (thrown) {
      outcome.failed = true;
      outcome.error = thrown;
    }
  }
}

/**
 * Runs `step` once `work` (the promise the filter's `next` returned) settles, and returns the promise the
 * filter returns in turn: as `work.then(...)` would, except that every filter of a request whose inner
 * filter returned such a promise adds its step to the same reaction. A long-running request (a watch)
 * then holds one promise and one pair of callbacks for its whole life, not a promise and closures per
 * filter. Steps run innermost first; a step that throws fails the steps after it, as a rejected `.then`.
 */
export function afterHandling(
  request: IncomingMessage,
  response: ServerResponse,
  work: Promise<void>,
  step: CompletionStep,
): Promise<void> {
  const context = contextOf(request);
  let completion = context.completion;
  if (!completion || completion.promise !== work || completion.settled) {
    completion = new Completion(request, response, work);
    context.completion = completion;
  }
  completion.add(step);
  return completion.promise;
}
