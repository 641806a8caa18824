import { isIP } from 'node:net';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  type FieldError,
  type KubeObject,
} from '@kapi/apimachinery';

// Upstream's ValidateEndpointSlice (pkg/apis/discovery/validation): the address type, each endpoint's
// addresses for that type (loopback allowed), hostname and node name, and the ports' names, protocols
// and app protocols.

interface Endpoint {
  addresses?: string[];
  hostname?: string;
  nodeName?: string;
  hints?: { forZones?: Array<{ name?: string }>; forNodes?: Array<{ name?: string }> };
}

interface EndpointPort {
  name?: string;
  protocol?: string;
  appProtocol?: string;
}

const maxEndpoints = 1000;
const maxAddresses = 100;
/** Upstream's maxZoneHints and maxNodeHints. */
const maxHints = 8;
const supported = (values: string[]) => `supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`;

/** Why `address` is not an address of `addressType` (upstream's IsValidIPv4Address, IsValidIPv6Address, IsFullyQualifiedDomainName). */
function addressErrors(address: string, addressType: string): string[] {
  if (addressType === 'FQDN') {
    const name = address.replace(/\.$/, '');
    if (!name.includes('.')) return ['should be a domain with at least two segments separated by dots'];
    return isDNS1123Subdomain(name);
  }
  // Unlike upstream, loopback and link-local addresses are allowed: on a single machine the aggregated
  // servers and webhooks this server reaches through EndpointSlices listen on 127.0.0.1.
  const family = addressType === 'IPv4' ? 4 : 6;
  return isIP(address) === family ? [] : [`must be a valid ${addressType} address`];
}

function validateEndpoints(endpoints: Endpoint[], addressType: string, errors: FieldError[]): void {
  if (endpoints.length > maxEndpoints) {
    errors.push({
      field: 'endpoints',
      type: 'FieldValueTooMany',
      value: endpoints.length,
      detail: `must have at most ${maxEndpoints} items`,
    });
    return;
  }
  endpoints.forEach((endpoint, index) => {
    const path = `endpoints[${index}]`;
    const addresses = endpoint.addresses ?? [];
    if (addresses.length === 0)
      errors.push({ field: `${path}.addresses`, type: 'FieldValueRequired', detail: 'must contain at least 1 address' });
    else if (addresses.length > maxAddresses)
      errors.push({
        field: `${path}.addresses`,
        type: 'FieldValueTooMany',
        value: addresses.length,
        detail: `must have at most ${maxAddresses} items`,
      });
    addresses.forEach((address, at) => {
      if (!['IPv4', 'IPv6', 'FQDN'].includes(addressType)) return;
      for (const detail of addressErrors(address, addressType))
        errors.push({ field: `${path}.addresses[${at}]`, type: 'FieldValueInvalid', value: address, detail });
    });
    if (endpoint.nodeName !== undefined)
      for (const detail of isDNS1123Subdomain(endpoint.nodeName))
        errors.push({ field: `${path}.nodeName`, type: 'FieldValueInvalid', value: endpoint.nodeName, detail });
    if (endpoint.hostname !== undefined)
      for (const detail of isDNS1123Label(endpoint.hostname))
        errors.push({ field: `${path}.hostname`, type: 'FieldValueInvalid', value: endpoint.hostname, detail });
    if (endpoint.hints) {
      validateHints(endpoint.hints.forZones, `${path}.hints.forZones`, isValidLabelValue, errors);
      validateHints(endpoint.hints.forNodes, `${path}.hints.forNodes`, isDNS1123Subdomain, errors);
    }
  });
}

/** Upstream's validateHints: at most 8 zones (nodes), each named once, with a valid name. */
function validateHints(hints: Array<{ name?: string }> | undefined, path: string, check: (name: string) => string[], errors: FieldError[]): void {
  if (!hints) return;
  if (hints.length > maxHints) {
    errors.push({ field: path, type: 'FieldValueTooMany', value: hints.length, detail: `must have at most ${maxHints} items` });
    return;
  }
  const seen = new Set<string>();
  hints.forEach((hint, index) => {
    const name = hint.name ?? '';
    const field = `${path}[${index}].name`;
    if (seen.has(name)) errors.push({ field, type: 'FieldValueDuplicate', value: name, detail: '' });
    seen.add(name);
    for (const detail of check(name)) errors.push({ field, type: 'FieldValueInvalid', value: name, detail });
  });
}

function validatePorts(ports: EndpointPort[], errors: FieldError[]): void {
  const protocols = ['SCTP', 'TCP', 'UDP'];
  const names = new Set<string>();
  ports.forEach((port, index) => {
    const path = `ports[${index}]`;
    const name = port.name ?? '';
    if (name)
      for (const detail of isDNS1123Label(name))
        errors.push({ field: `${path}.name`, type: 'FieldValueInvalid', value: name, detail });
    if (names.has(name)) errors.push({ field: `${path}.name`, type: 'FieldValueDuplicate', value: name, detail: '' });
    names.add(name);
    if (port.protocol !== undefined && !protocols.includes(port.protocol))
      errors.push({ field: `${path}.protocol`, type: 'FieldValueNotSupported', value: port.protocol, detail: supported(protocols) });
    if (port.appProtocol !== undefined)
      for (const detail of isQualifiedName(port.appProtocol))
        errors.push({ field: `${path}.appProtocol`, type: 'FieldValueInvalid', value: port.appProtocol, detail });
  });
}

/** Upstream's ValidateEndpointSlice (object metadata aside). */
export function validateEndpointSlice(object: KubeObject): FieldError[] {
  const addressTypes = ['IPv4', 'IPv6', 'FQDN'];
  const addressType = object['addressType'];
  const errors: FieldError[] = [];
  if (typeof addressType !== 'string' || !addressTypes.includes(addressType))
    errors.push({ field: 'addressType', type: 'FieldValueNotSupported', value: addressType, detail: supported(addressTypes) });
  validateEndpoints((object['endpoints'] as Endpoint[] | undefined) ?? [], String(addressType), errors);
  validatePorts((object['ports'] as EndpointPort[] | undefined) ?? [], errors);
  return errors;
}

/** Upstream's ValidateEndpointSliceUpdate: as a create, and the address type may not change. */
export function validateEndpointSliceUpdate(object: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateEndpointSlice(object);
  if (object['addressType'] !== old['addressType'])
    errors.push({ field: 'addressType', type: 'FieldValueInvalid', value: object['addressType'], detail: 'field is immutable' });
  return errors;
}
