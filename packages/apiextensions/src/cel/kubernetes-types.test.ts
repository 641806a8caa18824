import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '@kapi/apimachinery';
import { compileSchema } from '../schema/compile-schema.js';
import { validateCustomResourceSchema } from '../schema/validate-custom-resource-schema.js';

/** Evaluates `rule` on a spec holding `value` (a string): [] when it holds, else the error texts. */
/** Upstream's text of a rule whose evaluation failed. */
const evaluationError = (message: string, rule: string) => `spec: Invalid value: "object": ${message} evaluating rule: ${rule}`;

function check(rule: string, value: string): string[] {
  const schema = compileSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: { value: { type: 'string' } },
        'x-kubernetes-validations': [{ rule }],
      },
    },
  });
  return schema.validate({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x' }, spec: { value } }).map(fieldErrorMessage);
}

const holds = (rule: string, value = '') => expect(check(rule, value)).toEqual([]);
const fails = (rule: string, value = '') => expect(check(rule, value)).toEqual([`spec: Invalid value: failed rule: ${rule}`]);

describe('Kubernetes CEL types', () => {
  it('ip: parsing, family, canonical form and the address classes', () => {
    holds('isIP(self.value) && ip(self.value).family() == 4', '192.168.0.1');
    holds('ip(self.value).family() == 6 && string(ip(self.value)) == "2001:db8::1"', '2001:DB8:0:0:0:0:0:1');
    holds('ip.isCanonical("2001:db8::1") && !ip.isCanonical("2001:DB8::1")');
    holds('ip("127.0.0.1").isLoopback() && ip("::1").isLoopback() && ip("0.0.0.0").isUnspecified()');
    holds('ip("169.254.1.1").isLinkLocalUnicast() && ip("fe80::1").isLinkLocalUnicast() && ip("ff02::1").isLinkLocalMulticast()');
    holds('ip("8.8.8.8").isGlobalUnicast() && !ip("224.0.0.1").isGlobalUnicast() && !ip("255.255.255.255").isGlobalUnicast()');
    holds('ip("10.0.0.1") == ip("10.0.0.1") && ip("10.0.0.1") != ip("10.0.0.2")');
    fails('isIP(self.value)', '192.168.0.1.0');
    fails('isIP(self.value)', '::ffff:1.2.3.4');
    expect(check('ip(self.value).family() == 4', '192.168.0.1.0')).toEqual([evaluationError('IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): unable to parse IP', 'ip(self.value).family() == 4')]);
    expect(check('ip(self.value).family() == 6', '::ffff:1.2.3.4')).toEqual([evaluationError('IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed', 'ip(self.value).family() == 6')]);
  });

  it('cidr: containment, masking and prefix length', () => {
    holds('isCIDR(self.value) && cidr(self.value).prefixLength() == 8', '10.0.0.0/8');
    holds('cidr("10.0.0.0/8").containsIP("10.1.2.3") && !cidr("10.0.0.0/8").containsIP(ip("11.0.0.1"))');
    holds('cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16") && !cidr("10.1.0.0/16").containsCIDR(cidr("10.0.0.0/8"))');
    holds('string(cidr("10.1.2.3/8").masked()) == "10.0.0.0/8" && cidr("10.1.2.3/8").ip() == ip("10.1.2.3")');
    holds('cidr("2001:db8::/32").containsIP("2001:db8::1") && !cidr("2001:db8::/32").containsIP("10.0.0.1")');
    fails('isCIDR(self.value)', '10.0.0.0/33');
  });

  it('quantity: parsing, comparison and arithmetic', () => {
    holds('isQuantity(self.value) && quantity(self.value).isLessThan(quantity("1Gi"))', '500Mi');
    holds('quantity("1k") == quantity("1000") && quantity("1.5").compareTo(quantity("1500m")) == 0');
    holds('quantity("2").add(3) == quantity("5") && quantity("2").sub(quantity("500m")).asApproximateFloat() == 1.5');
    holds('quantity("1Ki").asInteger() == 1024 && !quantity("1m").isInteger() && quantity("-1").sign() == -1');
    holds('quantity("1e3").isGreaterThan(quantity("999"))');
    fails('isQuantity(self.value)', '1.2.3');
    expect(check('quantity(self.value).sign() == 1', 'lots')).toEqual([evaluationError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`, 'quantity(self.value).sign() == 1')]);
    expect(check('quantity("1m").asInteger() == 0', '')).toEqual([evaluationError('cannot convert value to integer', 'quantity("1m").asInteger() == 0')]);
  });

  it('url: parts of absolute URLs and paths', () => {
    holds('url(self.value).getScheme() == "https" && url(self.value).getHost() == "example.com:8443"', 'https://user@example.com:8443/a%20b?x=1&x=2');
    holds('url(self.value).getHostname() == "example.com" && url(self.value).getPort() == "8443"', 'https://example.com:8443/a');
    holds('url(self.value).getEscapedPath() == "/a%20b" && url(self.value).getQuery()["x"] == ["1", "2"]', 'https://example.com/a%20b?x=1&x=2');
    holds('url("https://[::1]:80/").getHostname() == "::1" && url("/path").getScheme() == ""');
    holds('isURL("https://example.com") && !isURL("example.com")');
    expect(check('url(self.value).getScheme() == ""', 'example.com')).toEqual([evaluationError('URL parse error during conversion from string: parse "example.com": invalid URI for request', 'url(self.value).getScheme() == ""')]);
  });

  it('format: named formats validate values, none when valid', () => {
    holds('!format.dns1123Label().validate(self.value).hasValue()', 'my-name');
    holds('format.dns1123Label().validate(self.value).hasValue()', 'My_Name');
    holds('format.named("dns1035Label").hasValue() && !format.named("nope").hasValue()');
    holds('!format.dns1123LabelPrefix().validate("abc-").hasValue() && format.dns1035Label().validate("1abc").hasValue()');
    holds('!format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue() && format.labelValue().validate("-x").hasValue()');
    expect(check('!format.dns1123Label().validate(self.value).hasValue()', 'My_Name')).toEqual([
      'spec: Invalid value: failed rule: !format.dns1123Label().validate(self.value).hasValue()',
    ]);
    holds(
      `format.dns1123Label().validate(self.value).value() == ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]`,
      'My_Name',
    );
  });

  it('refuses library functions on the wrong type and unknown namespaced functions at compile time', () => {
    expect(check('self.value.family() == 4', 'x')[0]).toContain('no such overload');
    const rules = (rule: string) => ({ type: 'object' as const, 'x-kubernetes-validations': [{ rule }] });
    expect(validateCustomResourceSchema(rules('ip.isCanonical("::1")'), 'schema').errors).toEqual([]);
    expect(validateCustomResourceSchema(rules('ip.isWeird("x")'), 'schema').errors.map(fieldErrorMessage)).toEqual([
      `schema.x-kubernetes-validations[0].rule: Invalid value: "ip.isWeird(\\"x\\")": compilation failed: ERROR: <input>: undeclared reference to 'isWeird' (in container '')`,
    ]);
  });
});
