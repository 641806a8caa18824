export type { SqliteBackendOptions, SqliteBackendStats } from './sqlite-backend.js';
export { SqliteBackend } from './sqlite-backend.js';
export type { SqliteStorageOptions } from './create-sqlite-storage.js';
export { createSqliteStorage } from './create-sqlite-storage.js';
