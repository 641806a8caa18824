const unitMilliseconds: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go `time.Duration` string (`30s`, `1m30s`, `500ms`, `-1.5h`, `0`) into milliseconds.
 * Throws an Error with Go's wording on bad input.
 */
export function parseGoDuration(text: string): number {
  const invalid = () => new Error(`time: invalid duration "${text}"`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest.startsWith('-')) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  const part = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== '') {
    const match = part.exec(rest);
    if (!match) {
      if (/^(\d+\.?\d*|\.\d+)$/.test(rest)) throw new Error(`time: missing unit in duration "${text}"`);
      throw invalid();
    }
    const [whole, number = '', unit = ''] = match;
    total += Number(number) * (unitMilliseconds[unit] ?? 0);
    rest = rest.slice(whole.length);
  }
  return sign * total;
}
