export type { StartEtcdOptions, EtcdInstance } from './start-etcd.js';
export { startEtcd } from './start-etcd.js';
