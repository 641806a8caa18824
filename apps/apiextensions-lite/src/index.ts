export type { RunningAPIExtensionsServer } from './apiextensions-lite.js';
export { startAPIExtensionsLite } from './apiextensions-lite.js';
