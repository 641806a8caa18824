/** The fewest objects a throttled migration lists per page. */
const minimumThrottledPage = 10;

/**
 * Objects listed per page: `pageSize`, but when writes are throttled (`qps` > 0) at most about one
 * second of them (and at least 10). A page is read from storage and decoded in one go on the server
 * (paged LISTs are not served from the watch cache), so a throttled migration that shares the server
 * with foreground traffic keeps each of those bursts small; unthrottled, the full page amortises the
 * LIST and the status save over more writes.
 */
export function effectivePageSize(pageSize: number, qps: number): number {
  if (qps <= 0) return pageSize;
  return Math.max(1, Math.min(pageSize, Math.max(minimumThrottledPage, Math.ceil(qps))));
}
