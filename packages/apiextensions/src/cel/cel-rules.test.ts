import { describe, expect, it } from 'vitest';
import { fieldErrorMessage } from '@kapi/apimachinery';
import { compileSchema } from '../schema/compile-schema.js';
import { escapePropertyName, unescapePropertyName } from './cel-value.js';
import { validateCustomResourceSchema } from '../schema/validate-custom-resource-schema.js';
import type { JSONSchemaProps, ValidationRule } from '../schema/json-schema-props.js';

function schemaWith(
  rules: ValidationRule[],
  properties: Record<string, JSONSchemaProps> = {},
): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': rules,
        properties: {
          min: { type: 'integer' },
          max: { type: 'integer' },
          name: { type: 'string', maxLength: 64 },
          namespace: { type: 'string' },
          'dotted.name': { type: 'string' },
          list: { type: 'array', maxItems: 10, items: { type: 'integer' } },
          port: { 'x-kubernetes-int-or-string': true },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          ...properties,
        },
      },
    },
  };
}

function check(rules: ValidationRule[], spec: unknown, oldSpec?: unknown): string[] {
  const resource = (value: unknown): Record<string, unknown> => ({
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'x' },
    spec: value,
  });
  return compileSchema(schemaWith(rules))
    .validate(resource(spec), oldSpec === undefined ? undefined : resource(oldSpec))
    .map(fieldErrorMessage);
}

describe('x-kubernetes-validations', () => {
  it('reports the message, the default "failed rule" text, and the node type as the value', () => {
    expect(
      check([{ rule: 'self.min <= self.max', message: 'min must not exceed max' }], { min: 3, max: 1 }),
    ).toEqual(['spec: Invalid value: min must not exceed max']);
    expect(check([{ rule: 'self.min <= self.max' }], { min: 3, max: 1 })).toEqual([
      'spec: Invalid value: failed rule: self.min <= self.max',
    ]);
    expect(check([{ rule: 'self.min <= self.max' }], { min: 1, max: 3 })).toEqual([]);
  });

  it('uses messageExpression, reason and fieldPath', () => {
    expect(
      check(
        [
          {
            rule: 'self.min <= self.max',
            messageExpression: "'min ' + string(self.min) + ' exceeds max'",
            reason: 'FieldValueForbidden',
            fieldPath: '.min',
          },
        ],
        { min: 3, max: 1 },
      ),
    ).toEqual(['spec.min: Forbidden: min 3 exceeds max']);
    expect(check([{ rule: 'has(self.name)', reason: 'FieldValueRequired', fieldPath: '.name' }], {})).toEqual(
      ['spec.name: Required value: failed rule: has(self.name)'],
    );
  });

  it('rules on a node and on its parent see the same values; evaluation errors keep their text', () => {
    const limit = Error.stackTraceLimit;
    const schema = schemaWith([{ rule: 'self.list.all(x, x > 0)' }, { rule: "self.free.missing == 'x'" }], {
      list: { type: 'array', maxItems: 10, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.size() < 3' }] },
    });
    const errors = (spec: unknown) =>
      compileSchema(schema)
        .validate({ apiVersion: 'x/v1', kind: 'X', metadata: { name: 'x' }, spec })
        .map(fieldErrorMessage);
    expect(errors({ list: [1, 2], free: { missing: 'x' } })).toEqual([]);
    expect(errors({ list: [1, -2, 3], free: { missing: 'x' } })).toEqual([
      'spec: Invalid value: failed rule: self.list.all(x, x > 0)',
      'spec.list: Invalid value: failed rule: self.size() < 3',
    ]);
    expect(errors({ list: [1], free: {} })).toEqual([
      `spec: Invalid value: "object": no such key: missing evaluating rule: self.free.missing == 'x'`,
    ]);
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('runs transition rules only with an old object, unless optionalOldSelf', () => {
    const immutable = [{ rule: 'self.name == oldSelf.name', message: 'name is immutable' }];
    expect(check(immutable, { name: 'a' })).toEqual([]);
    expect(check(immutable, { name: 'a' }, { name: 'a' })).toEqual([]);
    expect(check(immutable, { name: 'b' }, { name: 'a' })).toEqual([
      'spec: Invalid value: name is immutable',
    ]);
    const optional = [
      {
        rule: '!oldSelf.hasValue() || self.name == oldSelf.value().name',
        optionalOldSelf: true,
        message: 'immutable',
      },
    ];
    expect(check(optional, { name: 'b' })).toEqual([]);
    expect(check(optional, { name: 'b' }, { name: 'a' })).toEqual(['spec: Invalid value: immutable']);
    expect(
      check([{ rule: "self.name == oldSelf.orValue({'name': 'new'}).name", optionalOldSelf: true }], {
        name: 'new',
      }),
    ).toEqual([]);
  });

  it('ratchets: an unchanged value may keep failing a non-transition rule on update', () => {
    const rules = [{ rule: 'self.min <= self.max', message: 'min must not exceed max' }];
    expect(check(rules, { min: 3, max: 1 }, { min: 3, max: 1 })).toEqual([]);
    expect(check(rules, { min: 4, max: 1 }, { min: 3, max: 1 })).toEqual([
      'spec: Invalid value: min must not exceed max',
    ]);
    expect(check(rules, { min: 3, max: 1 })).toEqual(['spec: Invalid value: min must not exceed max']);
  });

  it('types self from the schema: integers, int-or-string, escaped names, preserved fields as dyn', () => {
    expect(check([{ rule: 'self.min * 2 == 6' }], { min: 3 })).toEqual([]);
    expect(
      check([{ rule: "type(self.port) == string ? self.port == 'http' : self.port > 0" }], { port: 'http' }),
    ).toEqual([]);
    expect(
      check([{ rule: "type(self.port) == string ? self.port == 'http' : self.port > 0" }], { port: 0 }),
    ).toHaveLength(1);
    expect(
      check([{ rule: "self.__namespace__ == 'ns' && self.dotted__dot__name == 'd'" }], {
        namespace: 'ns',
        'dotted.name': 'd',
      }),
    ).toEqual([]);
    expect(check([{ rule: 'self.free.a.b == 2' }], { free: { a: { b: 2 } } })).toEqual([]);
  });

  it('provides the Kubernetes list, string and regex libraries', () => {
    const rules = [
      'self.list.isSorted() && self.list.sum() == 6 && self.list.min() == 1 && self.list.max() == 3 && self.list.indexOf(2) == 1',
      "self.name.split('-').size() == 2 && self.name.upperAscii() == 'A-B' && self.name.replace('-', '.') == 'a.b'",
      "self.name.find('[a-z]$') == 'b' && self.name.findAll('[a-z]').size() == 2 && self.name.substring(2) == 'b'",
      'self.list.all(x, x > 0) && self.list.exists_one(x, x == 2) && self.list.filter(x, x > 1).map(x, x * 2) == [4, 6]',
      "isURL('https://example.com/a') && !isURL('not a url') && ['a', 'b'].join(',') == 'a,b'",
    ].map((rule) => ({ rule }));
    expect(check(rules, { list: [1, 2, 3], name: 'a-b' })).toEqual([]);
    expect(check([{ rule: 'self.list.isSorted()' }], { list: [2, 1] })).toEqual([
      'spec: Invalid value: failed rule: self.list.isSorted()',
    ]);
  });

  it('shows scalar values, omits objects, and renders Duplicate without a detail or an object value', () => {
    const schema = schemaWith([], {
      code: {
        type: 'string',
        'x-kubernetes-validations': [{ rule: "self.startsWith('x')", message: 'must start with x' }],
      },
      ids: {
        type: 'array',
        items: { type: 'string' },
        'x-kubernetes-validations': [
          { rule: 'self.all(a, self.exists_one(b, a == b))', reason: 'FieldValueDuplicate' },
        ],
      },
    });
    const resource = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'x' },
      spec: { code: 'abc', ids: ['a', 'a'] },
    };
    expect(compileSchema(schema).validate(resource).map(fieldErrorMessage)).toEqual([
      'spec.code: Invalid value: "abc": must start with x',
      'spec.ids: Duplicate value',
    ]);
  });

  it('reports evaluation errors with the rule', () => {
    expect(check([{ rule: 'self.name == "a"' }], {})).toEqual([
      'spec: Invalid value: "object": no such key: name evaluating rule: self.name == "a"',
    ]);
  });

  it('counts compiled programs (rules and message expressions)', () => {
    expect(
      compileSchema(schemaWith([{ rule: 'true' }, { rule: 'true', messageExpression: "'m'" }])).celRuleCount,
    ).toBe(3);
  });
});

describe('CEL at CRD validation', () => {
  const path = 'spec.versions[0].schema.openAPIV3Schema';

  it('refuses rules that do not compile', () => {
    const errors = validateCustomResourceSchema(
      schemaWith([
        { rule: 'self.min <' },
        { rule: 'self.nope()' },
        { rule: 'true', messageExpression: 'self.' },
      ]),
      path,
    ).errors.map(fieldErrorMessage);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(
      /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.min <": compilation failed: ERROR: <input>:1:/,
    );
    expect(errors[1]).toBe(
      `${path}.properties[spec].x-kubernetes-validations[1].rule: Invalid value: "self.nope()": compilation failed: ERROR: <input>: undeclared reference to 'nope' (in container '')`,
    );
    expect(errors[2]).toMatch(
      /x-kubernetes-validations\[2\]\.messageExpression: Invalid value: "self\.": compilation failed: /,
    );
  });

  it('checks message, messageExpression and reason of each rule', () => {
    const errors = validateCustomResourceSchema(
      schemaWith([
        { rule: '' },
        { rule: 'true', message: 'two\nlines' },
        { rule: 'true &&\ntrue' },
        { rule: 'true', messageExpression: ' ' },
        { rule: 'true', reason: 'Sometimes' },
      ]),
      path,
    ).errors.map(fieldErrorMessage);
    const rule = `${path}.properties[spec].x-kubernetes-validations`;
    expect(errors).toEqual([
      `${rule}[0].rule: Required value: rule is not specified`,
      `${rule}[1].message: Invalid value: "two\\nlines": message must not contain line breaks`,
      `${rule}[2].message: Required value: message must be specified if rule contains line breaks`,
      `${rule}[3].messageExpression: Required value: messageExpression must be non-empty if specified`,
      `${rule}[4].reason: Unsupported value: "Sometimes": supported values: "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"`,
    ]);
  });

  it('refuses a rule over the cost budget and accepts it once maxItems/maxLength bound it', () => {
    const unbounded: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            names: {
              type: 'array',
              items: { type: 'string' },
              'x-kubernetes-validations': [{ rule: 'self.all(a, self.all(b, a == b || !a.contains(b)))' }],
            },
          },
        },
      },
    };
    expect(validateCustomResourceSchema(unbounded, path).errors.map(fieldErrorMessage)).toEqual([
      `${path}.properties[spec].properties[names].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${path}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
    const names = unbounded.properties?.['spec']?.properties?.['names'] as JSONSchemaProps;
    names.maxItems = 16;
    names.items = { type: 'string', maxLength: 253 };
    expect(validateCustomResourceSchema(unbounded, path).errors).toEqual([]);
  });
});

describe('escaped property names', () => {
  it('round-trips through escaping and unescaping', () => {
    for (const name of ['namespace', 'a.b', 'x-y', 'a/b', 'a__b', 'plain'])
      expect(unescapePropertyName(escapePropertyName(name))).toBe(name);
    expect(escapePropertyName('a.b-c')).toBe('a__dot__b__dash__c');
  });
});
