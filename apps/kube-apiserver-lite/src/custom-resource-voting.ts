import type { ResourceClient } from '@kapi/client';
import type { AsyncConverter, ResourceDefinition } from '@kapi/server';
import type { StorageVersion, StorageVersionManager } from '@kapi/storageversion';
import type { VotingSetup } from './storage-version-voting.js';

const apiVersionOf = (group: string, version: string) => (group === '' ? version : `${group}/${version}`);
const keyOf = (group: string, resource: string) => `${group}/${resource}`;

/**
 * Voting mode for custom resources (issue 13: "voting applies to CRs too"). A CRD is served after the
 * voter started, so each of its resources served in more than one version is voted on when it is
 * installed (or its storage version changes): the returned function waits for the voter, votes with the
 * CRD's storage version as this server's preference, and resolves to the selected version, which the
 * StorageVersion then publishes (writes wait behind the barrier until then). A later switch of the
 * selection republishes it, as for built-ins. The resource's storage (the voting setup's `storageFor`)
 * already encodes in the selection and conditions every write on it.
 *
 * A resource converted by its CRD's conversion webhook is brought to the selected version by that webhook,
 * as every other conversion of it: `servedDefinition` gives its converter the selection as hub version.
 */
export function customResourceVoting(options: {
  voting: VotingSetup;
  manager: StorageVersionManager;
  identity: string;
  storageVersions: () => ResourceClient<StorageVersion>;
  /** Resolves once the voter has voted on the built-ins and follows the selection keys. */
  voterStarted: () => Promise<void>;
}): {
  encodingVersion: (definition: ResourceDefinition) => Promise<string>;
  servedDefinition: (definition: ResourceDefinition) => ResourceDefinition;
} {
  const { voting, manager } = options;
  const tracked = new Map<string, ResourceDefinition>();
  let listening = false;
  const listen = () => {
    if (listening) return;
    listening = true;
    voting.voter.onSelectionChange((change) => {
      const key = keyOf(change.groupResource.group, change.groupResource.resource);
      const definition = tracked.get(key);
      if (!definition) return;
      const served = manager.resourceInfos().some((info) => keyOf(info.groupResource.group, info.groupResource.resource) === key);
      if (!served) {
        // The CRD was deleted (its info removed): nothing to republish.
        tracked.delete(key);
        return;
      }
      const versions = definition.versions.map((version) => apiVersionOf(definition.group, version));
      manager.replaceResourceInfo({
        groupResource: change.groupResource,
        encodingVersion: apiVersionOf(definition.group, change.selectedVersion),
        decodableVersions: versions,
        servedVersions: versions,
      });
      void manager.updateStorageVersion(options.identity, { storageVersions: options.storageVersions() }, change.groupResource);
    });
  };
  const encodingVersion = async (definition: ResourceDefinition): Promise<string> => {
    const preferred = definition.storageVersion ?? definition.versions[0] ?? '';
    if (!voting.applies(definition)) return preferred;
    const groupResource = { group: definition.group, resource: definition.resource };
    await options.voterStarted();
    listen();
    voting.voter.register({ groupResource, preferredVersion: preferred, decodableVersions: definition.versions });
    tracked.set(keyOf(definition.group, definition.resource), definition);
    return voting.voter.vote(groupResource);
  };
  const servedDefinition = (definition: ResourceDefinition): ResourceDefinition => {
    const converter = definition.converter;
    if (!converter || !voting.applies(definition)) return definition;
    const { currentSelection } = voting.voter.selectionFor({ group: definition.group, resource: definition.resource });
    const selecting: AsyncConverter = {
      get hubVersion() {
        return currentSelection();
      },
      convert: (objects, version) => converter.convert(objects, version),
    };
    return { ...definition, converter: selecting };
  };
  return { encodingVersion, servedDefinition };
}
