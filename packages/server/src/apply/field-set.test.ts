import { describe, expect, it } from 'vitest';
import { compareElements, fieldElement, indexElement, keyElement, pathText, valueElement } from './field-path.js';
import { FieldSet } from './field-set.js';
import { fromFieldsV1, toFieldsV1, FieldsV1Error } from './fields-v1.js';

const f = fieldElement;

describe('path elements', () => {
  it('writes keys sorted and orders siblings field < key < value < index', () => {
    expect(keyElement([['protocol', 'TCP'], ['containerPort', 80]])).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    const elements = [indexElement(3), valueElement('b'), keyElement([['name', 'a']]), f('z'), valueElement('a'), f('a'), indexElement(10)];
    expect(elements.sort(compareElements)).toEqual(['f:a', 'f:z', 'k:{"name":"a"}', 'v:"a"', 'v:"b"', 'i:3', 'i:10']);
  });

  it('prints paths as conflict messages do', () => {
    expect(pathText([f('spec'), keyElement([['name', 'nginx']]), f('image')])).toBe('.spec[name="nginx"].image');
    expect(pathText([f('a'), keyElement([['port', 80], ['protocol', 'TCP']])])).toBe('.a[port=80,protocol="TCP"]');
    expect(pathText([f('finalizers'), valueElement('v')])).toBe('.finalizers[="v"]');
    expect(pathText([f('args'), indexElement(3)])).toBe('.args[3]');
  });
});

describe('FieldSet', () => {
  const a = FieldSet.of([f('a')], [f('b'), f('c')], [f('b'), f('d')]);
  const b = FieldSet.of([f('b'), f('c')], [f('e')]);

  it('unions, subtracts and intersects', () => {
    expect(a.union(b).paths()).toEqual([[f('a')], [f('b'), f('c')], [f('b'), f('d')], [f('e')]]);
    expect(a.difference(b).paths()).toEqual([[f('a')], [f('b'), f('d')]]);
    expect(a.intersection(b).paths()).toEqual([[f('b'), f('c')]]);
    expect(a.intersection(FieldSet.of([f('b')])).isEmpty()).toBe(true);
    expect(a.difference(a).isEmpty()).toBe(true);
  });

  it('keeps a parent member apart from its children', () => {
    const parent = FieldSet.of([f('b')], [f('b'), f('c')]);
    expect(parent.has([f('b')])).toBe(true);
    expect(a.has([f('b')])).toBe(false);
    expect(parent.difference(FieldSet.of([f('b')])).paths()).toEqual([[f('b'), f('c')]]);
    expect(parent.equals(FieldSet.of([f('b'), f('c')], [f('b')]))).toBe(true);
    expect(parent.equals(a)).toBe(false);
  });

  it('does not change its operands', () => {
    const before = a.paths();
    a.union(b).difference(a);
    expect(a.paths()).toEqual(before);
  });
});

describe('fieldsV1', () => {
  it('serializes the upstream example byte for byte', () => {
    const container = keyElement([['name', 'nginx']]);
    const containers = [f('spec'), f('template'), f('spec'), f('containers'), container];
    const set = FieldSet.of(
      [...containers, f('name')],
      [...containers, f('image')],
      containers,
      [f('spec'), f('replicas')],
      [f('metadata'), f('labels'), f('app')],
    );
    expect(JSON.stringify(toFieldsV1(set))).toBe(
      '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{}}}}}}}',
    );
  });

  it('writes "." only for members that have children, and parses back', () => {
    const set = FieldSet.of([f('data')], [f('data'), f('a')], [f('leaf')], [f('list'), valueElement(1)], [f('list'), indexElement(0)]);
    const fields = toFieldsV1(set);
    expect(fields).toEqual({ 'f:data': { '.': {}, 'f:a': {} }, 'f:leaf': {}, 'f:list': { 'v:1': {}, 'i:0': {} } });
    expect(Object.keys(fields['f:data'] ?? {})[0]).toBe('.');
    expect(fromFieldsV1(fields).equals(set)).toBe(true);
  });

  it('rejects what is not a fieldsV1 trie', () => {
    expect(() => fromFieldsV1({ 'x:a': {} })).toThrow(FieldsV1Error);
    expect(() => fromFieldsV1({ 'f:a': 1 })).toThrow(FieldsV1Error);
    expect(() => fromFieldsV1({ 'k:[1]': {} })).toThrow(FieldsV1Error);
  });
});
