import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A tiny Node process that outlives a test process killed with SIGKILL (where no exit hook runs): it
 * reads "add"/"remove" lines on stdin and, when stdin closes (its parent died), kills the registered
 * processes and removes their directories.
 */
const REAPER_SCRIPT = `
const { rmSync } = require('node:fs');
const live = new Map();
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let index = buffer.indexOf('\\n'); index >= 0; index = buffer.indexOf('\\n')) {
    const [operation, pid, directory] = JSON.parse(buffer.slice(0, index));
    buffer = buffer.slice(index + 1);
    if (operation === 'add') live.set(pid, directory);
    else live.delete(pid);
  }
});
process.stdin.on('end', () => {
  for (const [pid, directory] of live) {
    try { process.kill(pid, 'SIGKILL'); } catch {}
    try { rmSync(directory, { recursive: true, force: true }); } catch {}
  }
  process.exit(0);
});
`;

let reaper: ChildProcess | undefined;

function ensureReaper(): ChildProcess | undefined {
  if (reaper && reaper.exitCode === null) return reaper;
  try {
    const child = spawn(process.execPath, ['-e', REAPER_SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', () => undefined);
    child.stdin?.on('error', () => undefined);
    // Neither the process nor its stdin pipe may keep the test process alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    reaper = child;
    return child;
  } catch {
    return undefined; // best effort: the exit and signal hooks still apply
  }
}

/** Registers a process to be killed (and its directory removed) if this process dies abruptly. */
export function reapOnDeath(pid: number, directory: string): void {
  ensureReaper()?.stdin?.write(`${JSON.stringify(['add', pid, directory])}\n`);
}

/** Unregisters a process that was stopped normally. */
export function forgetReaped(pid: number): void {
  if (reaper && reaper.exitCode === null) reaper.stdin?.write(`${JSON.stringify(['remove', pid])}\n`);
}
