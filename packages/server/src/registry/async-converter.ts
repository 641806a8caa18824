import type { KubeObject } from '@kapi/apimachinery';
import type { StorageWatchEvent, Watch } from '@kapi/storage';

/**
 * Converts a resource's objects between its versions by a remote call (a CRD's conversion webhook), so
 * the event loop keeps serving while the answer is awaited. A {@link ResourceDefinition} with one is
 * converted through it instead of the scheme's synchronous conversions: request bodies to
 * {@link hubVersion} before they are stored, GET/LIST responses (a LIST in one call) and watch events
 * (one call per event, in order) to the request version.
 */
export interface AsyncConverter {
  /** The version objects are written to storage in. */
  readonly hubVersion: string;
  /**
   * Converts `objects` (of any version of the resource) to `version`, keeping their order; objects
   * already at `version` come back as they are, and none needing conversion means no call.
   */
  convert(objects: readonly KubeObject[], version: string): Promise<KubeObject[]>;
}

/** One object through {@link AsyncConverter.convert}. */
export async function convertOne(converter: AsyncConverter, object: KubeObject, version: string): Promise<KubeObject> {
  const [converted] = await converter.convert([object], version);
  if (!converted) throw new Error('the converter returned no object');
  return converted;
}

/**
 * A watch whose ADDED/MODIFIED/DELETED objects arrive converted to `version`, one conversion per event
 * in event order. A failed conversion ends the watch without an event, as upstream's watch server does
 * when it cannot encode an event ("unable to encode watch object"): the client sees its stream close, and
 * client-go's reflector watches again from the last resourceVersion it saw, where an ERROR event (a 500)
 * would have made it relist. (The same conversion failing on a GET or LIST answers the webhook's 500.)
 */
export function convertingWatch(watch: Watch, converter: AsyncConverter, version: string): Watch {
  async function* events(): AsyncGenerator<StorageWatchEvent> {
    for await (const event of watch) {
      if (event.type === 'BOOKMARK' || event.type === 'ERROR') {
        yield event;
        continue;
      }
      let object: KubeObject;
      try {
        object = await convertOne(converter, event.object as KubeObject, version);
      } catch {
        watch.stop();
        return;
      }
      yield object === event.object ? event : { type: event.type, object };
    }
  }
  return {
    stop: () => watch.stop(),
    done: watch.done,
    [Symbol.asyncIterator]: () => events(),
  };
}
