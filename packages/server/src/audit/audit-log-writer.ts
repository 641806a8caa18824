import { closeSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { AuditEvent, AuditSink } from '@kapi/filters';

/** Options of {@link AuditLogWriter} (`--audit-log-*`). */
export interface AuditLogOptions {
  /** The log file (`--audit-log-path`); `-` writes to stdout. */
  path: string;
  /** Rotate when the file would pass this many megabytes (`--audit-log-maxsize`); 0: never. */
  maxSizeMB?: number;
  /** Rotated files to keep (`--audit-log-maxbackup`); 0: all. */
  maxBackups?: number;
  /** Days to keep rotated files (`--audit-log-maxage`); 0: forever. */
  maxAgeDays?: number;
  /** Clock for backup names and ages; default `Date.now`. */
  now?: () => number;
}

/**
 * Writes audit events as JSON lines (upstream's log backend in `json` format), rotating the file as
 * lumberjack does: the full file is renamed to `<name>-<UTC time>.<ext>` and a new one started;
 * backups past `maxBackups` or older than `maxAgeDays` are removed.
 */
export class AuditLogWriter implements AuditSink {
  private fd: number | undefined;
  private size = 0;
  private readonly now: () => number;

  constructor(private readonly options: AuditLogOptions) {
    this.now = options.now ?? Date.now;
    if (options.path !== '-') this.open();
  }

  /** Appends one event as a line. */
  write(event: AuditEvent): void {
    const line = Buffer.from(`${JSON.stringify(event)}\n`);
    if (this.options.path === '-') {
      process.stdout.write(line);
      return;
    }
    const limit = (this.options.maxSizeMB ?? 0) * 1024 * 1024;
    if (limit > 0 && this.size > 0 && this.size + line.length > limit) this.rotate();
    if (this.fd === undefined) return;
    writeSync(this.fd, line);
    this.size += line.length;
  }

  /** Closes the file. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): void {
    this.fd = openSync(this.options.path, 'a', 0o600);
    this.size = statSync(this.options.path).size;
  }

  private rotate(): void {
    this.close();
    const extension = extname(this.options.path);
    const stem = basename(this.options.path, extension);
    const stamp = new Date(this.now()).toISOString().replace(/:/g, '-').replace(/Z$/, '');
    renameSync(this.options.path, join(dirname(this.options.path), `${stem}-${stamp}${extension}`));
    this.open();
    this.removeOldBackups(stem, extension);
  }

  private removeOldBackups(stem: string, extension: string): void {
    const directory = dirname(this.options.path);
    const backups = readdirSync(directory)
      .filter((name) => name.startsWith(`${stem}-`) && name.endsWith(extension))
      .sort()
      .reverse();
    const maxBackups = this.options.maxBackups ?? 0;
    const maxAgeMs = (this.options.maxAgeDays ?? 0) * 24 * 3600 * 1000;
    backups.forEach((name, index) => {
      const file = join(directory, name);
      const tooMany = maxBackups > 0 && index >= maxBackups;
      const tooOld = maxAgeMs > 0 && this.now() - statSync(file).mtimeMs > maxAgeMs;
      if (tooMany || tooOld) unlinkSync(file);
    });
  }
}
