export type { RunningControlPlane } from './control-plane.js';
export { startControlPlane } from './control-plane.js';
export type { ServerOptions } from './options.js';
export { parseOptions, helpText, parseDuration } from './options.js';
export { builtInKinds, builtInConversions, builtInResources, bootstrapRbacObjects, hpaV1ToV2, hpaV2ToV1 } from './resources/index.js';
export { openStorageBackend } from './storage-backend.js';
export { DEFAULT_STORAGE_INITIALIZATION_TIMEOUT_MS, STORAGE_READINESS_HOOK, storageReadinessHook } from './storage-readiness.js';
