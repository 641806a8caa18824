export { HealthRegistry, withCheckTimeout } from './health-registry.js';
export type {
  HealthCheck,
  HealthCheckEndpoints,
  HealthCheckResult,
  HealthEndpoint,
  HealthRegistryOptions,
  PostStartHook,
  PostStartHookContext,
} from './health-registry.js';
