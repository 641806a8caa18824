import { describe, expect, it } from 'vitest';
import { calculateNames } from './names.js';
import type { CustomResourceDefinition } from './types.js';
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate, validateStoredVersions } from './validation.js';

function crd(overrides: Partial<CustomResourceDefinition['spec']> = {}, name = 'widgets.example.com'): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      ...overrides,
    },
    status: { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] },
  };
}

const messages = (errors: Array<{ field: string; detail: string }>) => errors.map((e) => `${e.field}: ${e.detail}`);

describe('CustomResourceDefinition validation', () => {
  it('accepts a valid CRD', () => {
    expect(validateCustomResourceDefinition(crd())).toEqual([]);
  });

  it('requires the name to be <plural>.<group> and the group to have a dot', () => {
    expect(messages(validateCustomResourceDefinition(crd({}, 'other.example.com')))).toEqual([
      'metadata.name: must be spec.names.plural+"."+spec.group',
    ]);
    expect(messages(validateCustomResourceDefinition(crd({ group: 'example' }, 'widgets.example')))).toEqual([
      'spec.group: should be a domain with at least one dot',
    ]);
  });

  it('requires exactly one storage version with unique names and a schema', () => {
    const versions = [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
      { name: 'v1', served: true, storage: true },
    ];
    expect(messages(validateCustomResourceDefinition(crd({ versions })))).toEqual([
      'spec.versions: must contain unique version names',
      'spec.versions[1].schema.openAPIV3Schema: ',
      'spec.versions: must have exactly one version marked as storage version',
    ]);
  });

  it('refuses kind equal to listKind, a bad scope and preserveUnknownFields', () => {
    const spec = {
      scope: 'Global',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'Widget' },
      preserveUnknownFields: true,
    };
    expect(messages(validateCustomResourceDefinition(crd(spec)))).toEqual([
      'spec.scope: supported values: "Cluster", "Namespaced"',
      'spec.names.listKind: kind and listKind may not be the same',
      'spec.preserveUnknownFields: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]);
  });

  it('checks the conversion strategy fields', () => {
    expect(messages(validateCustomResourceDefinition(crd({ conversion: { strategy: 'Webhook' } })))).toEqual([
      'spec.conversion.webhookClientConfig: required when strategy is set to Webhook',
    ]);
    const webhook = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v2'] } };
    expect(messages(validateCustomResourceDefinition(crd({ conversion: webhook })))).toEqual([
      'spec.conversion.conversionReviewVersions: must include at least one of v1, v1beta1',
    ]);
  });

  it('requires the approval annotation in protected groups', () => {
    const protectedCrd = crd({ group: 'x.k8s.io' }, 'widgets.x.k8s.io');
    expect(messages(validateCustomResourceDefinition(protectedCrd))).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
  });

  it('keeps group and plural immutable, and kind once established', () => {
    const old = crd();
    const next = crd({ names: { plural: 'widgets', singular: 'widget', kind: 'Gadget', listKind: 'GadgetList' } });
    expect(messages(validateCustomResourceDefinitionUpdate(next, old, false))).toEqual([]);
    expect(messages(validateCustomResourceDefinitionUpdate(next, old, true))).toEqual(['spec.names.kind: field is immutable']);
  });

  it('requires stored versions to stay in spec.versions and to include the storage version', () => {
    const dropped = crd();
    dropped.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v0'] };
    expect(messages(validateStoredVersions(dropped))).toEqual([
      'status.storedVersions[0]: missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v0 and removes v0 from status.storedVersions',
      'status.storedVersions: must have the storage version v1',
    ]);
  });
});

describe('CRD naming', () => {
  it('accepts names without conflicts and flags the first clash with upstream reasons', () => {
    const established = crd();
    established.status = { acceptedNames: { ...established.spec.names }, storedVersions: ['v1'] };
    const candidate = crd({ names: { plural: 'gadgets', singular: 'gadget', kind: 'Widget', listKind: 'GadgetList' } }, 'gadgets.example.com');
    const outcome = calculateNames(candidate, [established]);
    expect(outcome.condition).toEqual({ type: 'NamesAccepted', status: 'False', reason: 'KindConflict', message: '"Widget" is already in use' });
    expect(outcome.acceptedNames).toMatchObject({ plural: 'gadgets', singular: 'gadget', kind: '', listKind: 'GadgetList' });
    expect(calculateNames(established, [established, candidate]).condition).toMatchObject({ status: 'True', reason: 'NoConflicts' });
  });

  it('reports the last clash found, as upstream, and several short names as one aggregate', () => {
    const established = crd({ names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wg', 'wd'] } });
    established.status = { acceptedNames: { ...established.spec.names }, storedVersions: ['v1'] };
    const clashing = (names: Record<string, unknown>) => calculateNames(crd({ names: { plural: 'others', kind: 'Other', ...names } }, 'others.example.com'), [established]).condition;
    expect(clashing({ shortNames: ['wg'], listKind: 'WidgetList' })).toEqual({ type: 'NamesAccepted', status: 'False', reason: 'ListKindConflict', message: '"WidgetList" is already in use' });
    expect(clashing({ shortNames: ['wg', 'wd'] })).toEqual({
      type: 'NamesAccepted',
      status: 'False',
      reason: 'ShortNamesConflict',
      message: '["wg" is already in use, "wd" is already in use]',
    });
  });
});
