export type { ConformanceTarget, SuiteContext } from './conformance-helpers.js';
export { runStorageConformance } from './run-storage-conformance.js';
export type { KVConformanceTarget } from './kv-conformance.js';
export { runKVBackendConformance } from './kv-conformance.js';
export { EventReader, equalitySelector, testObject } from './conformance-helpers.js';
