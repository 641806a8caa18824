import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const crlf = Buffer.from('\r\n');

/** The last line framed and its frame: every watcher of an event writes the same line, one after another. */
let lastLine: Buffer | undefined;
let lastFrame: Buffer | undefined;

/** `line` as one HTTP/1.1 chunk (`<size hex>\r\n<line>\r\n`) in a single buffer. */
function chunkFrame(line: Buffer): Buffer {
  if (line === lastLine && lastFrame) return lastFrame;
  const frame = Buffer.concat([Buffer.from(`${line.length.toString(16)}\r\n`, 'latin1'), line, crlf]);
  lastLine = line;
  lastFrame = frame;
  return frame;
}

/**
 * Writes a watch stream's lines to its response once the headers are out. On a chunked HTTP/1.1
 * response each line goes to the socket as one buffer holding its whole chunk, framed once per line
 * and shared by every watcher that writes it. `ServerResponse.write` would hand the socket four
 * buffers per line (size, CRLF, data, CRLF) that TLS then copies into one. Other responses
 * (HTTP/1.0, no socket) are written through the response as usual; `end()` always goes through it.
 */
export class WatchLineWriter {
  private readonly socket: Socket | undefined;
  /** Ends the pending {@link drained} wait, if any. */
  private wake: (() => void) | undefined;

  constructor(private readonly response: ServerResponse) {
    const chunked = (response as ServerResponse & { chunkedEncoding?: boolean }).chunkedEncoding === true;
    this.socket = chunked && response.headersSent && response.socket ? response.socket : undefined;
  }

  /** Writes one line; false when the connection asks to wait for {@link drained}. */
  write(line: Buffer | string): boolean {
    const socket = this.socket;
    if (!socket) return this.response.write(line);
    if (!socket.writable) return true;
    return socket.write(chunkFrame(typeof line === 'string' ? Buffer.from(line) : line));
  }

  /** Holds writes until {@link uncork}, to send a batch of lines in one flush. */
  cork(): void {
    if (this.socket) this.socket.cork();
    else this.response.cork();
  }

  uncork(): void {
    if (this.socket) this.socket.uncork();
    else this.response.uncork();
  }

  /** Resolves when the connection has drained or closed, or {@link stopWaiting} is called. */
  drained(): Promise<void> {
    const emitter = this.socket ?? this.response;
    if (this.socket?.destroyed ?? false) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        emitter.off('drain', done);
        emitter.off('close', done);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      emitter.on('drain', done);
      emitter.on('close', done);
    });
  }

  /** Resolves the pending {@link drained} wait now (the stream is ending). */
  stopWaiting(): void {
    this.wake?.();
  }
}
