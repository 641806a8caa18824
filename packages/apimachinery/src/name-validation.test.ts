import { describe, expect, it } from 'vitest';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
} from './name-validation.js';

const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('isDNS1123Subdomain', () => {
  it('accepts valid subdomains', () => {
    for (const value of ['a', 'example.com', 'a-b.c-d', '0.1', 'x'.repeat(253)])
      expect(isDNS1123Subdomain(value)).toEqual([]);
  });
  it('rejects with upstream texts', () => {
    expect(isDNS1123Subdomain('Foo')).toEqual([subdomainMessage]);
    expect(isDNS1123Subdomain('-a')).toEqual([subdomainMessage]);
    expect(isDNS1123Subdomain('a..b')).toEqual([subdomainMessage]);
    expect(isDNS1123Subdomain('')).toEqual([subdomainMessage]);
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });
});

describe('isDNS1123Label', () => {
  it('accepts labels and rejects dots, upper case and length', () => {
    expect(isDNS1123Label('my-name')).toEqual([]);
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('A')).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('isQualifiedName', () => {
  it('accepts names with and without prefix', () => {
    for (const value of ['app', 'My.Name_1', 'example.com/app', 'k8s.io/initial-events-end']) {
      expect(isQualifiedName(value)).toEqual([]);
    }
  });
  it('reports prefix and name problems', () => {
    expect(isQualifiedName('/app')).toEqual(['prefix part must be non-empty']);
    expect(isQualifiedName('example.com/')[0]).toBe('name part must be non-empty');
    expect(isQualifiedName('Example.com/app')[0]).toMatch(/^prefix part a lowercase RFC 1123 subdomain/);
    expect(isQualifiedName('a/b/c')[0]).toMatch(
      /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e.g. 'example.com\/MyName'\)$/,
    );
    expect(isQualifiedName('-app')).toEqual([
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isQualifiedName('a'.repeat(64))).toEqual(['name part must be no more than 63 characters']);
  });
});

describe('isValidLabelValue', () => {
  it('accepts empty and normal values, rejects bad ones', () => {
    expect(isValidLabelValue('')).toEqual([]);
    expect(isValidLabelValue('v1.2_3-x')).toEqual([]);
    expect(isValidLabelValue('a b')).toHaveLength(1);
    expect(isValidLabelValue('x'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });
});

describe('nameIsDNSSubdomain', () => {
  it('allows a trailing dash for prefixes only', () => {
    expect(nameIsDNSSubdomain('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('web-', false)).toHaveLength(1);
  });
});
