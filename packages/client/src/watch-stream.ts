import type { IncomingMessage } from 'node:http';
import type { KubeObject, WatchEvent } from '@kapi/apimachinery';

/** A decoded watch: iterate its events; `stop()` closes the connection. */
export interface WatchStream<T extends KubeObject = KubeObject> extends AsyncIterable<WatchEvent<T>> {
  stop(): void;
}

/** Decodes a newline-delimited JSON watch response body into events. */
export function decodeWatchStream<T extends KubeObject>(response: IncomingMessage, stop: () => void): WatchStream<T> {
  async function* events(): AsyncGenerator<WatchEvent<T>> {
    let buffered = '';
    try {
      for await (const chunk of response) {
        buffered += (chunk as Buffer).toString('utf8');
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          if (line) yield JSON.parse(line) as WatchEvent<T>;
          newline = buffered.indexOf('\n');
        }
      }
    } catch (error) {
      if ((error as { name?: string }).name !== 'AbortError' && (error as { code?: string }).code !== 'ECONNRESET') throw error;
    }
    const rest = buffered.trim();
    if (rest) yield JSON.parse(rest) as WatchEvent<T>;
  }
  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    stop,
  };
}
