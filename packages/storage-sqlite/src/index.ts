export type { SqliteBackendOptions, SqliteBackendStats } from './sqlite-backend.js';
export { SqliteBackend } from './sqlite-backend.js';
