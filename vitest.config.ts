import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The repository root (this file's folder), so `pnpm test` works from any package's folder. */
const repoRoot = fileURLToPath(new URL('.', import.meta.url));

const conditions = ['@kapi/source', 'module', 'node', 'import', 'default'];

/** One vitest project per workspace package, named after its folder. */
function projects(parent: string, options: { testTimeout?: number } = {}) {
  return readdirSync(join(repoRoot, parent))
    .filter((dir) => existsSync(join(repoRoot, parent, dir, 'package.json')))
    .map((dir) => ({
      extends: true as const,
      test: {
        name: dir,
        root: join(repoRoot, parent, dir),
        include: ['src/**/*.test.ts'],
        testTimeout: options.testTimeout ?? 20_000,
        hookTimeout: 60_000,
      },
    }));
}

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@kapi/source'] } },
  test: {
    projects: [...projects('packages'), ...projects('apps'), ...projects('tests', { testTimeout: 120_000 })],
  },
});
