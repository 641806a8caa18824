import { CelScalar, celFunc, celMethod, type CelFunc } from '@bufbuild/cel';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, maxLengthError, regexError } from '@kapi/apimachinery';
import { opaqueValue, requireOpaque } from './opaque-value.js';
import { optionalOf } from './optional-value.js';
import { stringFormatChecks } from '../schema/string-formats.js';

const { DYN, STRING } = CelScalar;

const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function isDNS1035Label(value: string): string[] {
  const errors = value.length > 63 ? [maxLengthError(63)] : [];
  if (!dns1035.test(value)) {
    errors.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        '[a-z]([-a-z0-9]*[a-z0-9])?',
        'my-name',
        'abc-123',
      ),
    );
  }
  return errors;
}

/** A prefix (a generateName) is valid when it would be with a character appended to a trailing dash. */
const asPrefix = (check: (value: string) => string[]) => (value: string) => check(value.endsWith('-') ? `${value.slice(0, -1)}a` : value);

const check = (name: string, valid: (value: string) => boolean) => (value: string) => (valid(value) ? [] : [`does not match the ${name} format`]);

/** The named formats of Kubernetes' format library, each a validator returning error texts. */
const formats: Record<string, (value: string) => string[]> = {
  dns1123Label: isDNS1123Label,
  dns1123Subdomain: isDNS1123Subdomain,
  dns1035Label: isDNS1035Label,
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: asPrefix(isDNS1123Label),
  dns1123SubdomainPrefix: asPrefix(isDNS1123Subdomain),
  dns1035LabelPrefix: asPrefix(isDNS1035Label),
  labelValue: isValidLabelValue,
  uri: check('uri', (value) => stringFormatChecks['uri']?.(value) ?? false),
  uuid: check('uuid', (value) => /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(value)),
  byte: check('byte', (value) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value)),
  date: check('date', (value) => stringFormatChecks['date']?.(value) ?? false),
  datetime: check('datetime', (value) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value))),
};

/**
 * Kubernetes' format library: `format.<name>()` (e.g. `format.dns1123Label()`), `format.named(name)` (an
 * optional format) and `<format>.validate(value)` (an optional list of errors: none when valid).
 */
export const formatLibrary: CelFunc[] = [
  ...Object.keys(formats).map((name) => celFunc(`format.${name}`, [], DYN, () => opaqueValue('format', name))),
  celFunc('format.named', [STRING], DYN, (name) => optionalOf(name in formats ? opaqueValue('format', name) : undefined)),
  celMethod('validate', DYN, [STRING], DYN, function (value) {
    const validator = formats[requireOpaque('format', this, 'validate')];
    const errors = validator ? validator(value) : [];
    return optionalOf(errors.length > 0 ? errors : undefined);
  }),
];
