export { apiServiceKind, apiregistrationGroup } from './apiservice-kind.js';
export type { APIService } from './apiservice-kind.js';
export { validateAPIService, validateAPIServiceStatus } from './apiservice-validation.js';
export { apiServiceResource, localAvailableCondition } from './apiservice-resource.js';
export { localAPIServices, automanagedLabel } from './local-apiservices.js';
export { registerAPIServices } from './register-apiservices.js';
