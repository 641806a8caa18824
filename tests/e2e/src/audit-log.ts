import { existsSync, readFileSync } from 'node:fs';

/** Test helpers of the audit tests: the JSON-lines audit log a server writes. */

/** The fields of an audit.k8s.io/v1 Event the tests read (`user` is `{}` when authentication failed). */
export interface AuditEvent {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username?: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { metadata?: object; code: number; reason?: string; message?: string; status?: string };
  requestObject?: { data?: Record<string, string> };
  responseObject?: { metadata?: { uid?: string } };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Every event of the log so far (none while the file does not exist). */
export function auditEvents(logPath: string): AuditEvent[] {
  if (!existsSync(logPath)) return [];
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent);
}

/** The events of one audit ID once its `stage` event has been written (waits up to 5 s). */
export async function auditEventsOf(logPath: string, auditID: string, stage = 'ResponseComplete'): Promise<AuditEvent[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = auditEvents(logPath).filter((event) => event.auditID === auditID);
    if (found.some((event) => event.stage === stage)) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${stage} event for ${auditID}`);
}
