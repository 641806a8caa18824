export type { Etcd3BackendOptions, CompactRevisionSwap } from './etcd3-backend.js';
export { Etcd3Backend, COMPACT_REVISION_KEY } from './etcd3-backend.js';
export type { CompactorOptions, RunningCompactor } from './compactor.js';
export { startCompactor } from './compactor.js';
export { supportsRequestProgress } from './server-version.js';
export { releaseClosedHttp2Streams } from './closed-stream-release.js';
export { cheapenHttp2RequestBinding } from './request-binding.js';
export { skipGrpcCallerStacks } from './grpc-caller-stacks.js';
