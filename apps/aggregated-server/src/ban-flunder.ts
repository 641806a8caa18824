import { StatusError, type KubeObject } from '@kapi/apimachinery';
import { Informer, ResourceClient, type RestClient } from '@kapi/client';
import type { ResourceStrategy } from '@kapi/server';
import { wardleGroup } from './wardle-scheme.js';

const flunders = { group: wardleGroup, resource: 'flunders' };

/**
 * sample-apiserver's `BanFlunder` admission plugin: a Flunder whose name is in any Fischer's
 * `disallowedFlunders` may not be created. Fischers are watched through the server's own loopback
 * client (upstream's informer); until that cache has synced every Flunder create is refused.
 */
export class BanFlunder {
  private informer: Informer | undefined;

  /** Starts watching Fischers (call once the server listens). */
  start(loopback: RestClient): void {
    this.informer = new Informer(
      new ResourceClient(loopback, { group: wardleGroup, version: 'v1beta1', resource: 'fischers', namespaced: false }),
    );
    this.informer.start();
  }

  /** Stops the Fischer watch. */
  async stop(): Promise<void> {
    await this.informer?.stop();
  }

  /** The admission check, as a strategy `admit` hook. */
  readonly admit: NonNullable<ResourceStrategy['admit']> = (operation, object) => {
    if (operation !== 'create') return;
    const name = object.metadata.name ?? '';
    if (!this.informer?.hasSynced()) {
      throw StatusError.forbidden(flunders, name, 'not yet ready to handle request');
    }
    for (const fischer of this.informer.indexer.list()) {
      const disallowed = (fischer as KubeObject & { disallowedFlunders?: unknown }).disallowedFlunders;
      if (Array.isArray(disallowed) && disallowed.includes(name)) {
        throw StatusError.forbidden(flunders, name, 'this name may not be used, please change the resource name');
      }
    }
  };
}
