import { readFileSync } from 'node:fs';

/**
 * `node --import tsx src/profile-diff.ts <control.cpuprofile> <control requests> <subject.cpuprofile> <subject requests> [rows]`:
 * two CPU profiles (e.g. the GET runs of `KAPI_BENCH_PROFILE=<dir> ... http`) side by side, as self time
 * per function per request (node internals and native calls such as writev included, idle left out),
 * largest difference first. The profiles sample wall time: on a loaded machine a descheduled thread's
 * time lands on the call it resumes in (often a syscall such as writev or read), so compare runs made
 * close together, and the CPU per request of the bench rows before the totals here.
 */
interface Profile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (µs per request), keyed `name file:line`. */
export function selfTimePerRequest(file: string, requests: number): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    if (!frame || frame.functionName === '(idle)') return;
    const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').pop() ?? ''}:${frame.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[index] ?? 0) / requests);
  });
  return self;
}

const [controlFile, controlRequests, subjectFile, subjectRequests, rows = '40'] = process.argv.slice(2);
if (process.argv[1]?.endsWith('profile-diff.ts')) {
  if (!controlFile || !subjectFile) throw new Error('usage: profile-diff.ts <control.cpuprofile> <requests> <subject.cpuprofile> <requests> [rows]');
  const control = selfTimePerRequest(controlFile, Number(controlRequests));
  const subject = selfTimePerRequest(subjectFile, Number(subjectRequests));
  const total = (times: Map<string, number>) => [...times.values()].reduce((sum, value) => sum + value, 0);
  console.log(`busy µs per request: control ${total(control).toFixed(1)}, subject ${total(subject).toFixed(1)}`);
  console.log('control  subject     diff  function');
  const keys = [...new Set([...control.keys(), ...subject.keys()])];
  const difference = (key: string) => (subject.get(key) ?? 0) - (control.get(key) ?? 0);
  keys.sort((a, b) => Math.abs(difference(b)) - Math.abs(difference(a)));
  for (const key of keys.slice(0, Number(rows)))
    console.log(`${(control.get(key) ?? 0).toFixed(2).padStart(7)} ${(subject.get(key) ?? 0).toFixed(2).padStart(8)} ${difference(key).toFixed(2).padStart(8)}  ${key}`);
}
