/**
 * Run as a separate process by the multi-process test:
 *   node --conditions=@kapi/source --import tsx write-from-another-process.ts <database> <prefix> <count>
 *   [delayMs]
 * Creates `<prefix>0..<count-1>` (pausing `delayMs` between writes) through its own SqliteBackend on the same file, then updates and
 * deletes the first key, and prints the last revision it wrote.
 */
import { SqliteBackend } from '../sqlite-backend.js';

const [path, prefix, countText, delayText = '0'] = process.argv.slice(2);
if (path === undefined || prefix === undefined || countText === undefined) {
  throw new Error('usage: write-from-another-process <database> <prefix> <count> [delayMs]');
}
const kv = await SqliteBackend.open({ path });
const value = new TextEncoder().encode('from another process');
let revision = 0;
for (let index = 0; index < Number(countText); index++) {
  const result = await kv.create(`${prefix}${index}`, value);
  if (!result.succeeded) throw new Error(`create ${prefix}${index} failed`);
  revision = result.revision;
  await new Promise((resolve) => setTimeout(resolve, Number(delayText)));
}
const first = await kv.get(`${prefix}0`);
if (first.entry) {
  const updated = await kv.update(`${prefix}0`, value, first.entry.modRevision);
  if (!updated.succeeded) throw new Error('update failed');
  const deleted = await kv.delete(`${prefix}0`, updated.revision);
  if (!deleted.succeeded) throw new Error('delete failed');
  revision = deleted.revision;
}
await kv.close();
process.stdout.write(`${revision}\n`);
