import { describe, expect, it } from 'vitest';
import { createObservability } from './observability.js';

describe('createObservability', () => {
  it("exports the SQLite store's write counters as they are at each scrape", async () => {
    const observability = createObservability();
    const stats = { transactions: 2, writes: 9, checkpoints: 0 };
    observability.watchSqlite(() => stats);
    expect(await observability.metrics.text()).toMatch(/^kapi_sqlite_writes_total 9$/m);
    stats.transactions = 5;
    stats.writes = 40;
    stats.checkpoints = 3;
    const text = await observability.metrics.text();
    expect(text).toMatch(/^kapi_sqlite_writes_total 40$/m);
    expect(text).toMatch(/^kapi_sqlite_write_transactions_total 5$/m);
    expect(text).toMatch(/^kapi_sqlite_checkpoints_total 3$/m);
    expect(text).toContain('# TYPE kapi_sqlite_writes_total counter');
  });
});
