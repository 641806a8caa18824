import { readdirSync, existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const conditions = ['@kapi/source', 'module', 'node', 'import', 'default'];

/** One vitest project per workspace package, named after its folder. */
function projects(parent: string, options: { testTimeout?: number } = {}) {
  return readdirSync(parent)
    .filter((dir) => existsSync(`${parent}/${dir}/package.json`))
    .map((dir) => ({
      extends: true as const,
      test: {
        name: dir,
        root: `${parent}/${dir}`,
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
