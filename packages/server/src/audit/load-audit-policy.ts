import { readFileSync } from 'node:fs';
import { parseAuditPolicy, type AuditPolicy } from '@kapi/filters';
import { parse as parseYaml } from 'yaml';

/** Reads an audit policy file (`--audit-policy-file`, YAML or JSON), throwing on a bad one. */
export function loadAuditPolicyFile(path: string): AuditPolicy {
  const text = readFileSync(path, 'utf8');
  try {
    return parseAuditPolicy(parseYaml(text) as unknown);
  } catch (error) {
    throw new Error(`loading audit policy file ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
