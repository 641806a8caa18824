export type { ConformanceTarget, SuiteContext } from './conformance-helpers.js';
export { runStorageConformance } from './run-storage-conformance.js';
export { EventReader, equalitySelector, testObject } from './conformance-helpers.js';
