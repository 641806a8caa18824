export type { StartEtcdOptions, EtcdInstance } from './start-etcd.js';
export { startEtcd } from './start-etcd.js';
export type { EtcdCluster, EtcdClusterMember } from './start-etcd-cluster.js';
export { startEtcdCluster } from './start-etcd-cluster.js';
