export { startAggregatedServer } from './aggregated-server.js';
export type { RunningAggregatedServer } from './aggregated-server.js';
export { parseOptions, helpText } from './options.js';
export type { AggregatedServerOptions } from './options.js';
export { addWardleToScheme, wardleGroup, wardleVersions } from './wardle-scheme.js';
export type { WardleVersion } from './wardle-scheme.js';
export { registrationObjects, wardleAPIServices } from './self-registration.js';
export type { RegistrationOptions } from './self-registration.js';
