import { describe, expect, it } from 'vitest';
import { toStatus } from '@kapi/apimachinery';
import { StorageError, storageErrorToStatus } from './storage-error.js';

describe('storageErrorToStatus', () => {
  it('maps each code to its Kubernetes status', () => {
    const gr = { group: 'apps', resource: 'deployments' };
    expect(storageErrorToStatus(StorageError.keyNotFound('/registry/deployments/ns/a'), gr, 'a').message).toBe(
      'deployments.apps "a" not found',
    );
    expect(storageErrorToStatus(StorageError.keyExists('/k'), gr, 'a').code).toBe(409);
    const conflict = storageErrorToStatus(StorageError.conflict('/k', 3), gr, 'a');
    expect(conflict.reason).toBe('Conflict');
    expect(conflict.status.message).toBe(
      'Operation cannot be fulfilled on deployments.apps "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(storageErrorToStatus(StorageError.requestTooLarge('/k', 2, 1)).code).toBe(413);
  });

  it('is used by the generic normaliser', () => {
    const status = toStatus(StorageError.keyNotFound('/registry/configmaps/default/x'));
    expect(status.code).toBe(404);
    expect(status.message).toBe('objects "x" not found');
  });

  it('renders the upstream precondition message', () => {
    const error = StorageError.invalidObject('/k', 0, 'Precondition failed: UID in precondition: x, UID in object meta: y');
    expect(error.message).toBe(
      'StorageError: invalid object, Code: 4, Key: /k, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: x, UID in object meta: y',
    );
  });
});
