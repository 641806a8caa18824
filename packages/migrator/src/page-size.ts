/** The fewest objects a throttled migration lists per page. */
const minimumThrottledPage = 10;
/** The share of a second of writes a throttled migration lists per page. */
const throttledPageSeconds = 0.25;

/**
 * Objects listed per page: `pageSize`, but when writes are throttled (`qps` > 0) at most about a quarter
 * second of them (and at least 10). A page is read from storage and decoded (and decrypted) in one go on
 * the server's event loop (paged LISTs are not served from the watch cache), so a throttled migration
 * that shares the server with foreground traffic keeps each of those stalls short: at 40 qps, pages of 10
 * instead of 40, so a foreground request that meets one waits a quarter as long. Unthrottled, the full
 * page amortises the LIST and the status save over more writes.
 */
export function effectivePageSize(pageSize: number, qps: number): number {
  if (qps <= 0) return pageSize;
  return Math.max(1, Math.min(pageSize, Math.max(minimumThrottledPage, Math.ceil(qps * throttledPageSeconds))));
}
