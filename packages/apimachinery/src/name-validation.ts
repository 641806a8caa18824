/**
 * Name and label validation with the error texts of k8s.io/apimachinery/pkg/util/validation.
 * Every function returns a list of messages; an empty list means the value is valid.
 */

const dns1123LabelFormat = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrorMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFormat = `${dns1123LabelFormat}(\\.${dns1123LabelFormat})*`;
const dns1123SubdomainErrorMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const qualifiedNameFormat = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedNameErrorMessage =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFormat = `(${qualifiedNameFormat})?`;
const labelValueErrorMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const dns1123LabelPattern = new RegExp(`^${dns1123LabelFormat}$`);
const dns1123SubdomainPattern = new RegExp(`^${dns1123SubdomainFormat}$`);
const qualifiedNamePattern = new RegExp(`^${qualifiedNameFormat}$`);
const labelValuePattern = new RegExp(`^${labelValueFormat}$`);

/** Maximum length of a DNS-1123 label (and of a label value or a qualified name's name part). */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** Maximum length of a DNS-1123 subdomain. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Maximum length of a label value. */
export const LABEL_VALUE_MAX_LENGTH = 63;

/** `must be no more than <n> characters`. */
export function maxLengthError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `<message> (e.g. 'a' or 'b', regex used for validation is '<format>')` (validation.RegexError). */
export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  // Upstream joins with " or " after a trailing ", ", hence the double space: "'a',  or 'b', ".
  const shown = examples.map((example) => `'${example}', `).join(' or ');
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

/** `must be non-empty`. */
export function emptyError(): string {
  return 'must be non-empty';
}

/** Checks a DNS-1123 label (RFC 1123): at most 63 lower-case alphanumerics or '-', alphanumeric at both ends. */
export function isDNS1123Label(value: string): string[] {
  const errors: string[] = [];
  if (value.length > DNS1123_LABEL_MAX_LENGTH) errors.push(maxLengthError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelPattern.test(value)) {
    if (dns1123SubdomainPattern.test(value)) errors.push('must not contain dots');
    else errors.push(regexError(dns1123LabelErrorMessage, dns1123LabelFormat, 'my-name', '123-abc'));
  }
  return errors;
}

const dns1035LabelFormat = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelPattern = new RegExp(`^${dns1035LabelFormat}$`);

/** Checks a DNS-1035 label: at most 63 lower-case alphanumerics or '-', starting with a letter. */
export function isDNS1035Label(value: string): string[] {
  const errors: string[] = [];
  if (value.length > DNS1123_LABEL_MAX_LENGTH) errors.push(maxLengthError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1035LabelPattern.test(value)) {
    errors.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        dns1035LabelFormat,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errors;
}

/** Checks a DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels. */
export function isDNS1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errors.push(maxLengthError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainPattern.test(value)) {
    errors.push(regexError(dns1123SubdomainErrorMessage, dns1123SubdomainFormat, 'example.com'));
  }
  return errors;
}

/** Checks a qualified name (label key, annotation key, finalizer): `[prefix/]name`, prefix a DNS subdomain. */
export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errors.push(`prefix part ${emptyError()}`);
    else errors.push(...isDNS1123Subdomain(prefix).map((message) => `prefix part ${message}`));
  } else {
    return [
      `a qualified name ${regexError(qualifiedNameErrorMessage, qualifiedNameFormat, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errors.push(`name part ${emptyError()}`);
  else if (name.length > DNS1123_LABEL_MAX_LENGTH)
    errors.push(`name part ${maxLengthError(DNS1123_LABEL_MAX_LENGTH)}`);
  if (!qualifiedNamePattern.test(name)) {
    errors.push(
      `name part ${regexError(qualifiedNameErrorMessage, qualifiedNameFormat, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errors;
}

/** Checks a label value: empty, or at most 63 alphanumerics, '-', '_' or '.', alphanumeric at both ends. */
export function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (value.length > LABEL_VALUE_MAX_LENGTH) errors.push(maxLengthError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValuePattern.test(value)) {
    errors.push(regexError(labelValueErrorMessage, labelValueFormat, 'MyValue', 'my_value', '12345'));
  }
  return errors;
}

/**
 * A name validator as used by `validateObjectMeta`: `prefix` is true when validating a generateName
 * (a trailing '-' is then allowed, since random characters follow).
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

/** The default name validator: a DNS-1123 subdomain (ValidateNameFunc NameIsDNSSubdomain). */
export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** A name validator requiring a DNS-1123 label (namespaces, services...). */
export const nameIsDNSLabel: NameValidator = (name, prefix) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** A name validator for path-segment names (RBAC roles and bindings): not `.` or `..`, no `/` or `%`. */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  const errors: string[] = [];
  if (!prefix && (name === '.' || name === '..')) errors.push(`may not be '${name}'`);
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errors.push(`may not contain '${illegal}'`);
  return errors;
};
