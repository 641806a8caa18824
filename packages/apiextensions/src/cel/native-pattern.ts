import { RE2JS } from '@bufbuild/re2';

/**
 * A JavaScript RegExp for an RE2 pattern of a small subset on which both engines find the same matches:
 * printable ASCII literals, `^`, `$`, `|`, groups (`(` and `(?:`), the repetitions `* + ? {n,m}` (lazy too),
 * and positive classes of ASCII characters and ranges. Nothing whose meaning differs between them gets in:
 * no `.` (which differs on line ends), escapes (`\s`, `\b`, `\pL`), negated or nested classes, or flags.
 * Outside the subset, or when either engine refuses the pattern, there is none (RE2 answers alone).
 */
export function nativePattern(pattern: string): RegExp | undefined {
  let found = nativePatterns.get(pattern);
  if (found === undefined) {
    found = inSubset(pattern) ? compileBoth(pattern) : null;
    if (nativePatterns.size < maxPatterns) nativePatterns.set(pattern, found);
  }
  return found ?? undefined;
}

const nativePatterns = new Map<string, RegExp | null>();
const maxPatterns = 1000;

function compileBoth(pattern: string): RegExp | null {
  try {
    RE2JS.compile(pattern);
    return new RegExp(pattern, 'u');
  } catch {
    return null;
  }
}

const isClassChar = (char: string | undefined): boolean => char !== undefined && char !== '-' && char !== ']' && char !== '[';

/** The class at `start` (just after `[`) made of literals and ranges only; its end (after `]`) or -1. */
function classEnd(pattern: string, start: number): number {
  let index = start;
  if (pattern[index] === '^' || pattern[index] === ']') return -1;
  if (pattern[index] === '-') index++;
  while (index < pattern.length && pattern[index] !== ']') {
    const char = pattern[index];
    if (!isClassChar(char)) {
      // A last `-` before `]` is a literal in both.
      if (char === '-' && pattern[index + 1] === ']') {
        index++;
        continue;
      }
      return -1;
    }
    if (pattern[index + 1] === '-' && isClassChar(pattern[index + 2])) {
      if (pattern.charCodeAt(index + 2) < pattern.charCodeAt(index)) return -1;
      index += 3;
    } else index++;
  }
  return index < pattern.length ? index + 1 : -1;
}

function inSubset(pattern: string): boolean {
  for (let index = 0; index < pattern.length; index++) {
    const code = pattern.charCodeAt(index);
    if (code < 0x20 || code > 0x7e) return false;
  }
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (char === '\\' || char === '.') return false;
    if (char === '[') {
      const end = classEnd(pattern, index + 1);
      if (end < 0) return false;
      index = end;
      continue;
    }
    if (char === '(' && pattern[index + 1] === '?') {
      if (pattern[index + 2] !== ':') return false;
      index += 3;
      continue;
    }
    if (char === '{') {
      const repetition = /^\{\d{1,3}(,\d{0,3})?\}/.exec(pattern.slice(index));
      if (repetition === null) return false;
      index += repetition[0].length;
      continue;
    }
    if (char === ']' || char === '}') return false;
    index++;
  }
  return true;
}
