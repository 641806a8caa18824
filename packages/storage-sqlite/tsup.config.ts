import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/sqlite-writer-worker.ts', 'src/sqlite-checkpoint-worker.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
});
