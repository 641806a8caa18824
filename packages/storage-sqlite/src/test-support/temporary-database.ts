import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory for a test database; `remove()` deletes it. */
export function temporaryDatabase(): { path: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), 'kapi-sqlite-'));
  return {
    path: join(directory, 'kv.db'),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
