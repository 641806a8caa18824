/** The alphabet of generated name suffixes (no vowels, no confusable characters), as upstream. */
export const GENERATE_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const randomLength = 5;
const maxNameLength = 63;
const maxBaseLength = maxNameLength - randomLength;

/** A random index below `size`: not cryptographic, as upstream's math/rand (a taken name is retried). */
function randomIndex(size: number): number {
  return Math.floor(Math.random() * size);
}

/**
 * `metadata.generateName` -> a name: `base` (cut to 58 characters) followed by 5 random characters from
 * {@link GENERATE_NAME_ALPHABET} (names.SimpleNameGenerator).
 */
export function generateName(base: string, random: (alphabetSize: number) => number = randomIndex): string {
  const prefix = base.length > maxBaseLength ? base.slice(0, maxBaseLength) : base;
  let suffix = '';
  for (let index = 0; index < randomLength; index++) {
    suffix += GENERATE_NAME_ALPHABET[random(GENERATE_NAME_ALPHABET.length)] ?? 'x';
  }
  return prefix + suffix;
}
