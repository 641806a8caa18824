const marker = Symbol.for('kapi.error');

/**
 * Base class of every error kapi throws on purpose. `isInstance` works across duplicate copies of the
 * package (unlike `instanceof`), through a `Symbol.for` marker.
 */
export class KapiError extends Error {
  private readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  /** True when `error` is a KapiError from any copy of this package. */
  static isInstance(error: unknown): error is KapiError {
    return typeof error === 'object' && error !== null && marker in error;
  }

  /** Whether retrying the same operation may succeed. */
  get isRetryable(): boolean {
    return false;
  }
}
