import { isDNS1123Subdomain, isQualifiedName, type FieldError, type KubeObject } from '@kapi/apimachinery';

/** Upstream's limits on a core/v1 Event's fields. */
const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

const invalid = (field: string, value: unknown, detail: string): FieldError => ({
  field,
  type: 'FieldValueInvalid',
  value,
  detail,
});
const required = (field: string): FieldError => ({ field, type: 'FieldValueRequired', detail: '' });

/**
 * Upstream's legacy core/v1 Event validation (`legacyValidateEvent`): an event without an eventTime names
 * an object of its own namespace (any object from `default`); an event with one (the events.k8s.io shape)
 * needs its reporting component, instance, action and reason, each within upstream's length limits.
 * `reportingField` names the reporting component in errors (upstream's internal name, `reportingController`,
 * for the events.k8s.io API).
 */
export function validateEvent(object: KubeObject, reportingField = 'reportingComponent'): FieldError[] {
  const event = object as KubeObject & Record<string, unknown>;
  const involved = (event['involvedObject'] ?? {}) as { namespace?: string };
  const namespace = object.metadata.namespace ?? '';
  const involvedNamespace = involved.namespace ?? '';
  const errors: FieldError[] = [];
  const text = (name: string) => (typeof event[name] === 'string' ? (event[name] as string) : '');
  if (!event['eventTime']) {
    const matches =
      involvedNamespace === ''
        ? namespace === '' || namespace === 'default'
        : namespace === involvedNamespace;
    if (!matches)
      errors.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system')
      errors.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    const component = text('reportingComponent');
    if (component === '') errors.push(required(reportingField));
    else
      for (const message of isQualifiedName(component))
        errors.push(invalid(reportingField, component, message));
    const instance = text('reportingInstance');
    if (instance === '') errors.push(required('reportingInstance'));
    else if (instance.length > REPORTING_INSTANCE_LIMIT)
      errors.push(
        invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LIMIT} characters`),
      );
    const action = text('action');
    if (action === '') errors.push(required('action'));
    else if (action.length > ACTION_LIMIT)
      errors.push(invalid('action', '', `can have at most ${ACTION_LIMIT} characters`));
    const reason = text('reason');
    if (reason === '') errors.push(required('reason'));
    else if (reason.length > REASON_LIMIT)
      errors.push(invalid('reason', '', `can have at most ${REASON_LIMIT} characters`));
    if (text('message').length > NOTE_LIMIT)
      errors.push(invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const message of isDNS1123Subdomain(namespace)) errors.push(invalid('namespace', namespace, message));
  return errors;
}
