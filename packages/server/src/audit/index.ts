export type { AuditLogOptions } from './audit-log-writer.js';
export { AuditLogWriter } from './audit-log-writer.js';
export { loadAuditPolicyFile } from './load-audit-policy.js';
