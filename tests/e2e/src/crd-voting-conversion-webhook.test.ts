import { startEtcd } from '@kapi/storage-etcd3/testing';
import { Etcd3 } from 'etcd3';
import { afterAll, describe, expect, it } from 'vitest';
import { startWebhookConvertedServer, webhookConvertedCRD, type WebhookConvertedServer } from './conversion-webhook.js';
import { until } from './crd-fixtures.js';
import { kubectl } from './harness.js';

const group = 'vote.convert.example.com';
const voteKey = `/registry/kube-apiserver.internal.k8s.io/storageversions/${group}.boxes`;
const selectionKey = `/registry/storage-version-selection/${group}.boxes`;

interface Vote {
  selectedVersion: string;
  candidateVersions: Array<{ apiServerID: string; preferredVersion: string }>;
}

/**
 * A webhook-converted CRD in voting mode: while another live apiserver still votes for the old storage
 * version, the selection stays there after the CRD's storage version changes, and this server must
 * write in the selection, converting through the CRD's webhook (not in the CRD's new storage version).
 */
describe('voting mode and a conversion webhook', () => {
  let etcd: Awaited<ReturnType<typeof startEtcd>> | undefined;
  let started: WebhookConvertedServer | undefined;
  let kv: Etcd3 | undefined;

  afterAll(async () => {
    kv?.close();
    await started?.stop();
    await etcd?.stop();
  });

  it('writes a custom resource in the selected version, converted by the webhook', async () => {
    etcd = await startEtcd();
    kv = new Etcd3({ hosts: etcd.endpoint });
    const etcdKV = kv;
    started = await startWebhookConvertedServer(group, ['--storage=etcd', `--etcd-servers=${etcd.endpoint}`, '--storage-version-mode=vote', '--storage-version-migrator=false']);
    const { server, webhook, clientConfig } = started;
    const box = (name: string, version: string) =>
      JSON.stringify(
        version === 'v1'
          ? { apiVersion: `${group}/v1`, kind: 'Box', metadata: { name, namespace: 'default' }, spec: { size: 4 } }
          : { apiVersion: `${group}/v2`, kind: 'Box', metadata: { name, namespace: 'default' }, spec: { dimensions: { size: 4 } } },
      );
    // Retried while the storage-version barrier holds writes (503); a 500 fails the test at once.
    const create = (name: string, version: string) =>
      until(
        `create ${name}`,
        () =>
          kubectl(server, ['create', '-f', '-'], box(name, version)).then(
            () => true,
            (error: Error) => {
              if (error.message.includes('InternalError')) throw error;
              return false;
            },
          ),
        Boolean,
      );
    await create('first', 'v1');
    expect(await etcdKV.get(selectionKey).string()).toBe('v1');

    // Another apiserver (an older release) holds an identity lease and votes for v1.
    const renewTime = new Date().toISOString().replace('Z', '000Z');
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'older-apiserver', namespace: 'kube-system', labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' } },
      spec: { holderIdentity: 'older-apiserver', leaseDurationSeconds: 3600, renewTime },
    }));
    const vote = JSON.parse((await etcdKV.get(voteKey).string()) ?? '{}') as Vote;
    vote.candidateVersions.push({ apiServerID: 'older-apiserver', preferredVersion: 'v1' });
    await etcdKV.put(voteKey).value(JSON.stringify(vote));

    // The CRD now stores v2: this server votes for v2, the other apiserver keeps the selection at v1.
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(webhookConvertedCRD(group, 'Box', clientConfig, 'v2')));
    await until(
      'this server votes for v2',
      async () => JSON.parse((await etcdKV.get(voteKey).string()) ?? '{}') as Vote,
      (current) => current.candidateVersions.some((candidate) => candidate.apiServerID !== 'older-apiserver' && candidate.preferredVersion === 'v2'),
    );
    webhook.reviews.length = 0;
    await create('second', 'v2');
    expect(await etcdKV.get(selectionKey).string()).toBe('v1');
    const stored = JSON.parse((await etcdKV.get(`/registry/${group}/boxes/default/second`).string()) ?? '{}') as Record<string, unknown>;
    expect(stored).toMatchObject({ apiVersion: `${group}/v1`, kind: 'Box', spec: { size: 4 } });
    // The v2 request was converted to the selection by the webhook.
    expect(webhook.reviews.map((review) => review.request.desiredAPIVersion)).toContain(`${group}/v1`);
    // Read back in both versions.
    const atV2 = JSON.parse(await kubectl(server, ['get', `boxes.v2.${group}`, 'second', '-o', 'json'])) as Record<string, unknown>;
    expect(atV2).toMatchObject({ apiVersion: `${group}/v2`, spec: { dimensions: { size: 4 } } });

    // The other apiserver now prefers v2 too: this server's next vote (on a CRD change) moves the selection,
    // and an object stored at v1 (its cached copy at v1) is updated into v2.
    const agreeing = JSON.parse((await etcdKV.get(voteKey).string()) ?? '{}') as Vote;
    for (const candidate of agreeing.candidateVersions) candidate.preferredVersion = 'v2';
    await etcdKV.put(voteKey).value(JSON.stringify(agreeing));
    const changed = JSON.stringify(webhookConvertedCRD(group, 'Box', clientConfig, 'v2')).replace('"conversionReviewVersions":["v1"]', '"conversionReviewVersions":["v1","v1beta1"]');
    await kubectl(server, ['apply', '-f', '-'], changed);
    await until('selection', () => etcdKV.get(selectionKey).string(), (value) => value === 'v2');
    await until(
      'patch at v2',
      () => kubectl(server, ['patch', `boxes.v2.${group}`, 'first', '-n', 'default', '--type=merge', '-p', '{"spec":{"dimensions":{"size":5}}}']).then(() => true, (error: Error) => {
        if (!error.message.includes('ServiceUnavailable')) throw error;
        return false;
      }),
      Boolean,
    );
    const updated = JSON.parse((await etcdKV.get(`/registry/${group}/boxes/default/first`).string()) ?? '{}') as Record<string, unknown>;
    expect(updated).toMatchObject({ apiVersion: `${group}/v2`, spec: { dimensions: { size: 5 } } });
  });
});
