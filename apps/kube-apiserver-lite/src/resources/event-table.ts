import type { PrinterColumn } from '@kapi/server';

/**
 * Upstream's event table (LAST SEEN, TYPE, REASON, OBJECT as `kind/name`, MESSAGE) over the fields of one
 * API's Event: core/v1 (`lastTimestamp`, `involvedObject`, `message`) or events.k8s.io/v1
 * (`deprecatedLastTimestamp`, `regarding`, `note`).
 */
export function eventPrinterColumns(fields: { lastSeen: string; object: string; message: string }): PrinterColumn[] {
  return [
    { name: 'Last Seen', type: 'date', jsonPath: `.${fields.lastSeen}` },
    { name: 'Type', type: 'string', jsonPath: '.type' },
    { name: 'Reason', type: 'string', jsonPath: '.reason' },
    {
      name: 'Object',
      type: 'string',
      jsonPath: `.${fields.object}`,
      cell: (object) => {
        const reference = (object[fields.object] ?? {}) as { kind?: string; name?: string };
        return `${(reference.kind ?? '').toLowerCase()}/${reference.name ?? ''}`;
      },
    },
    { name: 'Message', type: 'string', jsonPath: `.${fields.message}` },
  ];
}

/** The field selector labels of an Event's object reference under `prefix` (`involvedObject`, `regarding`). */
export function objectReferenceFields(prefix: string, reference: unknown): Record<string, string> {
  const fields = (reference ?? {}) as Record<string, string | undefined>;
  const result: Record<string, string> = {};
  for (const name of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) result[`${prefix}.${name}`] = fields[name] ?? '';
  return result;
}
