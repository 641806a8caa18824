import { existsSync, readFileSync } from 'node:fs';

/** Test helpers of the audit tests: the JSON-lines audit log a server writes. */

/** What every audit event has; each test names the fields it reads. */
export interface AuditEventBase {
  auditID: string;
  stage: string;
}

/** Every event of the log so far (none while the file does not exist). */
export function auditEvents<E extends AuditEventBase>(logPath: string): E[] {
  if (!existsSync(logPath)) return [];
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as E);
}

/** The events of one audit ID once its `stage` event has been written (waits up to 5 s). */
export async function auditEventsOf<E extends AuditEventBase>(logPath: string, auditID: string, stage = 'ResponseComplete'): Promise<E[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = auditEvents<E>(logPath).filter((event) => event.auditID === auditID);
    if (found.some((event) => event.stage === stage)) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${stage} event for ${auditID}`);
}
