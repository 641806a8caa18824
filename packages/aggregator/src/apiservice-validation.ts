import { isDNS1123Subdomain, nameIsPathSegment, type FieldError } from '@kapi/apimachinery';
import type { APIService } from './apiservice-kind.js';

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Upstream's IsDNS1035Label messages. */
function isDNS1035Label(value: string): string[] {
  const errors: string[] = [];
  if (value.length > 63) errors.push('must be no more than 63 characters');
  if (!dns1035Label.test(value)) {
    errors.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return errors;
}

const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  field,
  type: 'FieldValueInvalid',
  value,
  detail,
});
const required = (field: string, detail: string): FieldError => ({
  field,
  type: 'FieldValueRequired',
  detail,
});

/**
 * Validates an APIService as upstream's ValidateAPIService (object meta aside): the name must be
 * `<version>.<group>`, priorities in range, local APIServices without TLS settings, a remote one with a
 * complete service reference.
 */
export function validateAPIService(apiService: APIService): FieldError[] {
  // A missing spec is an empty one (as Go decodes it): zero priorities are refused below.
  const spec: Partial<APIService['spec']> = apiService.spec ?? {};
  const group = spec.group ?? '';
  const version = spec.version ?? '';
  const errors: FieldError[] = [];
  const name = apiService.metadata.name ?? '';
  const requiredName = `${version}.${group}`;
  const nameErrors = nameIsPathSegment(name, false);
  if (nameErrors.length === 0 && name !== requiredName)
    nameErrors.push(`must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`);
  for (const detail of nameErrors) errors.push(invalid('metadata.name', name, detail));

  if (group === '' && version !== 'v1')
    errors.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '')
    for (const detail of isDNS1123Subdomain(group)) errors.push(invalid('spec.group', group, detail));
  for (const detail of isDNS1035Label(version)) errors.push(invalid('spec.version', version, detail));
  const groupPriorityMinimum = spec.groupPriorityMinimum ?? 0;
  if (groupPriorityMinimum <= 0 || groupPriorityMinimum > 20000) {
    errors.push(invalid('spec.groupPriorityMinimum', groupPriorityMinimum, 'must be positive and less than 20000'));
  }
  const versionPriority = spec.versionPriority ?? 0;
  if (versionPriority <= 0 || versionPriority > 1000) {
    errors.push(invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  }
  const caBytes = spec.caBundle ? Buffer.from(spec.caBundle, 'base64').length : 0;
  const service = spec.service;
  if (!service) {
    if (caBytes)
      errors.push(invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (spec.insecureSkipTLSVerify) {
      errors.push(
        invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'),
      );
    }
    return errors;
  }
  if (!service.namespace) errors.push(required('spec.service.namespace', ''));
  if (!service.name) errors.push(required('spec.service.name', ''));
  const port = service.port ?? 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    errors.push(
      invalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'),
    );
  }
  if (spec.insecureSkipTLSVerify && caBytes > 0) {
    errors.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  return errors;
}

/** Upstream's ValidateAPIServiceStatus: condition statuses are True, False or Unknown. */
export function validateAPIServiceStatus(apiService: APIService): FieldError[] {
  const supported = ['True', 'False', 'Unknown'];
  return (apiService.status?.conditions ?? []).flatMap((condition, index) =>
    supported.includes(condition.status)
      ? []
      : [
          {
            field: `status.conditions[${index}].status`,
            type: 'FieldValueNotSupported',
            value: condition.status,
            detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
          },
        ],
  );
}
