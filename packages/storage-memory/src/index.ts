export type { MemoryBackendOptions } from './memory-backend.js';
export { MemoryBackend } from './memory-backend.js';
export type { MemoryStorageOptions } from './create-memory-storage.js';
export { createMemoryStorage } from './create-memory-storage.js';
