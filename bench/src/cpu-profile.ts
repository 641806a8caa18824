import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

let runs = 0;

/**
 * Runs `run`, CPU-profiling this process (its main thread) meanwhile when the environment variable
 * `KAPI_BENCH_PROFILE` names a directory: the profile goes to `<dir>/<name>-<n>.cpuprofile`. Lets a
 * scenario profile one phase only (e.g. the proxied GETs), not its set-up or its control.
 */
export async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  const directory = process.env.KAPI_BENCH_PROFILE;
  if (!directory) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(directory, `${name}-${runs++}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
