import { Type, kindSchema, type FieldError, type KindDefinition, type KubeObject, withFieldDescriptions } from '@kapi/apimachinery';
import type { ResourceDefinition } from '@kapi/server';
import { isIP } from 'node:net';
import { objectReferenceSchema } from './common-schemas.js';
import { endpointsDescription, endpointsDescriptions } from './endpoints-descriptions.js';

// core/v1 Endpoints, storage only (no endpoints controller): served as upstream serves it since 1.33,
// deprecated in favour of EndpointSlices, with its Warning on every request.

const address = Type.Object(
  {
    ip: Type.String(),
    hostname: Type.Optional(Type.String()),
    nodeName: Type.Optional(Type.String()),
    targetRef: Type.Optional(objectReferenceSchema),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

const port = Type.Object(
  {
    name: Type.Optional(Type.String()),
    port: Type.Integer(),
    protocol: Type.Optional(Type.String({ default: 'TCP' })),
    appProtocol: Type.Optional(Type.String()),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

const atomic = { 'x-kubernetes-list-type': 'atomic' } as const;

/** The kind: v1 Endpoints. */
export const endpointsKind: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  schema: withFieldDescriptions(
    kindSchema({
      group: '',
      version: 'v1',
      kind: 'Endpoints',
      description: endpointsDescription,
      properties: {
        subsets: Type.Optional(
          Type.Array(
            Type.Object({
              addresses: Type.Optional(Type.Array(address, atomic)),
              notReadyAddresses: Type.Optional(Type.Array(address, atomic)),
              ports: Type.Optional(Type.Array(port, atomic)),
            }),
            atomic,
          ),
        ),
      },
    }),
    endpointsDescriptions,
  ),
};

interface Subset {
  addresses?: Array<{ ip: string }>;
  notReadyAddresses?: Array<{ ip: string }>;
  ports?: Array<{ name?: string; port: number; protocol?: string }>;
}

const subsetsOf = (object: KubeObject) => (object['subsets'] as Subset[] | undefined) ?? [];

/** Upstream's Endpoints validation of addresses and ports. */
function validateEndpoints(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const protocols = ['TCP', 'UDP', 'SCTP'];
  subsetsOf(object).forEach((subset, index) => {
    const at = `subsets[${index}]`;
    for (const list of ['addresses', 'notReadyAddresses'] as const) {
      (subset[list] ?? []).forEach((entry, position) => {
        if (isIP(entry.ip) === 0)
          errors.push({
            field: `${at}.${list}[${position}].ip`,
            type: 'FieldValueInvalid',
            value: entry.ip,
            detail: 'must be a valid IP address',
          });
      });
    }
    const ports = subset.ports ?? [];
    ports.forEach((entry, position) => {
      const field = `${at}.ports[${position}]`;
      if (ports.length > 1 && !entry.name)
        errors.push({ field: `${field}.name`, type: 'FieldValueRequired', detail: '' });
      if (!(entry.port >= 1 && entry.port <= 65535))
        errors.push({
          field: `${field}.port`,
          type: 'FieldValueInvalid',
          value: entry.port,
          detail: 'must be between 1 and 65535, inclusive',
        });
      if (entry.protocol !== undefined && !protocols.includes(entry.protocol))
        errors.push({
          field: `${field}.protocol`,
          type: 'FieldValueNotSupported',
          value: entry.protocol,
          detail: `supported values: ${protocols.map((p) => JSON.stringify(p)).join(', ')}`,
        });
    });
  });
  return errors;
}

/** kubectl's ENDPOINTS column, as upstream's printer: the first 3 `ip:port` pairs, then `+ N more...`. */
export function formatEndpoints(object: KubeObject): string {
  const subsets = subsetsOf(object);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    // A headless service's endpoints may have no ports: the addresses alone.
    const ports = subset.ports?.length ? subset.ports.map((entry) => entry.port) : [undefined];
    for (const entry of ports) {
      count += addresses.length;
      for (const { ip } of addresses) {
        if (shown.length === max) break;
        shown.push(entry === undefined ? ip : ip.includes(':') ? `[${ip}]:${entry}` : `${ip}:${entry}`);
      }
    }
  }
  return count > max ? `${shown.join(',')} + ${count - max} more...` : shown.join(',');
}

/** `endpoints` (v1), deprecated as upstream's. */
export const endpointsResource: ResourceDefinition = {
  group: '',
  resource: 'endpoints',
  kind: 'Endpoints',
  namespaced: true,
  shortNames: ['ep'],
  versions: ['v1'],
  returnDeletedObject: false,
  tracksGeneration: false,
  deprecationWarning: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
  printerColumns: [
    { name: 'Endpoints', type: 'string', jsonPath: '.subsets', cell: formatEndpoints },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
  strategy: { validate: validateEndpoints, validateUpdate: validateEndpoints },
};
