import { describe, expect, it } from 'vitest';
import { helpText, parseDuration, parseOptions } from './options.js';

describe('parseOptions', () => {
  it('has the documented defaults', () => {
    const options = parseOptions([]);
    expect(options).toMatchObject({
      storage: 'sqlite',
      sqliteMode: 'writer-thread',
      etcdPrefix: '/registry',
      etcdCompactionIntervalMs: 300_000,
      securePort: 6443,
      authorizationModes: ['RBAC'],
      watchCache: true,
      storageVersionMode: 'publish',
      identityLeaseDurationSeconds: 3600,
      identityLeaseRenewIntervalSeconds: 10,
      maxRequestsInFlight: 400,
      maxMutatingRequestsInFlight: 200,
      requestTimeoutSeconds: 60,
      http2MaxStreamsPerConnection: 0,
      gcHeapGrowthPercent: 100,
    });
  });

  it('parses storage versions, modes and overrides', () => {
    const options = parseOptions([
      '--storage=etcd',
      '--etcd-servers=http://127.0.0.1:1,http://127.0.0.1:2',
      '--storage-version',
      'autoscaling/horizontalpodautoscalers=autoscaling/v1',
      '--authorization-mode=AlwaysAllow,RBAC',
      '--watch-cache=false',
      '--hostname-override=replica-1',
      '--sqlite-mode=exclusive',
    ]);
    expect(options.sqliteMode).toBe('exclusive');
    expect(options.etcdServers).toEqual(['http://127.0.0.1:1', 'http://127.0.0.1:2']);
    expect(options.storageVersions.get('autoscaling/horizontalpodautoscalers')).toBe('autoscaling/v1');
    expect(options.authorizationModes).toEqual(['AlwaysAllow', 'RBAC']);
    expect(options.watchCache).toBe(false);
    expect(options.hostnameOverride).toBe('replica-1');
  });

  it('serves the console by default (--console=false turns it off)', () => {
    expect(parseOptions([]).console).toBe(true);
    expect(parseOptions(['--console=false']).console).toBe(false);
  });

  it('serves anonymous requests by default, as upstream (--anonymous-auth=false turns it off)', () => {
    expect(parseOptions([]).anonymousAuth).toBe(true);
    expect(parseOptions(['--anonymous-auth=false']).anonymousAuth).toBe(false);
  });

  it('rejects bad values and unknown flags', () => {
    expect(() => parseOptions(['--storage=postgres'])).toThrow('--storage must be sqlite, memory or etcd');
    expect(() => parseOptions(['--sqlite-mode=fast'])).toThrow('--sqlite-mode must be writer-thread, exclusive or shared');
    expect(() => parseOptions(['--storage-version=hpa'])).toThrow('--storage-version takes');
    expect(() => parseOptions(['--nope'])).toThrow();
    expect(() => parseOptions(['--identity-lease-duration-seconds=0'])).toThrow('must be greater than 0');
    expect(() => parseOptions(['--http2-max-streams-per-connection=-1'])).toThrow('--http2-max-streams-per-connection must be a non-negative number');
    expect(() => parseOptions(['--gc-heap-growth-percent=1.5'])).toThrow('--gc-heap-growth-percent must be a whole number');
    expect(parseOptions(['--gc-heap-growth-percent=0']).gcHeapGrowthPercent).toBe(0);
  });

  it('parses Go durations', () => {
    expect(parseDuration('5m')).toBe(300_000);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('250ms')).toBe(250);
    expect(() => parseDuration('five')).toThrow('invalid duration');
  });

  it('lists every flag in --help', () => {
    const help = helpText();
    for (const flag of ['--storage', '--data-dir', '--etcd-servers', '--etcd-prefix', '--bind-address', '--secure-port', '--token-auth-file', '--client-ca-file', '--authorization-mode', '--watch-cache', '--etcd-compaction-interval', '--hostname-override', '--storage-version']) {
      expect(help).toContain(flag);
    }
  });

  it('parses the service account token flags as upstream', () => {
    expect(parseOptions([])).toMatchObject({
      serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
      apiAudiences: ['https://kubernetes.default.svc.cluster.local'],
      serviceAccountKeyFiles: [],
      serviceAccountMaxTokenExpirationSeconds: 0,
    });
    const options = parseOptions([
      '--service-account-issuer=https://a.example',
      '--service-account-issuer=https://b.example',
      '--service-account-signing-key-file=/keys/sa.key',
      '--service-account-key-file=/keys/old.pub',
      '--service-account-max-token-expiration=48h',
    ]);
    expect(options).toMatchObject({
      serviceAccountIssuers: ['https://a.example', 'https://b.example'],
      apiAudiences: ['https://a.example'],
      serviceAccountSigningKeyFile: '/keys/sa.key',
      serviceAccountKeyFiles: ['/keys/old.pub'],
      serviceAccountMaxTokenExpirationSeconds: 172_800,
    });
    expect(parseOptions(['--api-audiences=api,vault']).apiAudiences).toEqual(['api', 'vault']);
    expect(() => parseOptions(['--service-account-max-token-expiration=30m'])).toThrow('between 1 hour and 2^32 seconds');
  });
});
