import { sleep } from '@kapi/client';

/** A client-side rate limit (client-go's token bucket): `qps` tokens a second, at most `burst` saved up. */
export class TokenBucket {
  private tokens: number;
  private last = Date.now();

  constructor(
    readonly qps: number,
    readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Waits for a token; `qps` 0 or less means unlimited. */
  async take(signal?: AbortSignal): Promise<void> {
    if (this.qps <= 0) return;
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      if (signal?.aborted) return;
      await sleep(Math.ceil(((1 - this.tokens) / this.qps) * 1000), signal);
    }
  }
}
