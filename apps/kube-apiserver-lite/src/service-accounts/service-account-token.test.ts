import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '@kapi/apimachinery';
import { decodeJwt } from './jwt.js';
import { loadServiceAccountKeys } from './service-account-keys.js';
import { issueServiceAccountToken, validateServiceAccountToken, type ObjectGetter, type ServiceAccountTokenSettings } from './service-account-token.js';

const dataDir = mkdtempSync(join(tmpdir(), 'kapi-sa-token-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const issuer = 'https://kubernetes.default.svc.cluster.local';
const keys = loadServiceAccountKeys({ dataDir });
const start = Date.UTC(2026, 0, 1);
let clock = start;
const settings: ServiceAccountTokenSettings = { issuers: [issuer], apiAudiences: [issuer], keys, now: () => clock };

/** A tiny object store: `resource/namespace/name` -> object. */
const objects = new Map<string, KubeObject>();
const put = (resource: string, namespace: string, name: string, uid: string, extra: Partial<KubeObject> = {}) =>
  objects.set(`${resource}/${namespace}/${name}`, { apiVersion: 'v1', kind: 'X', metadata: { name, namespace, uid }, ...extra });
const getObject: ObjectGetter = (resource, namespace, name) => Promise.resolve(objects.get(`${resource}/${namespace}/${name}`));

const serviceAccount = { namespace: 'default', name: 'robot', uid: 'sa-uid-1' };
const issue = (input: Partial<Parameters<typeof issueServiceAccountToken>[1]> = {}) =>
  issueServiceAccountToken(settings, { serviceAccount, audiences: [issuer], expirationSeconds: 3600, ...input });
const validate = (token: string, audiences?: string[]) => validateServiceAccountToken(settings, getObject, token, audiences);

describe('service account tokens', () => {
  it('are RS256 JWTs with upstream claims and key id', () => {
    clock = start;
    put('serviceaccounts', 'default', 'robot', 'sa-uid-1');
    const { token, expiresAt, jti } = issue();
    const jwt = decodeJwt(token);
    const spki = keys.verificationKeys[0]?.publicKey.export({ type: 'spki', format: 'der' }) ?? Buffer.alloc(0);
    expect(jwt?.header).toEqual({ alg: 'RS256', kid: createHash('sha256').update(spki).digest('base64url') });
    expect(jwt?.header.kid).toBe(keys.signingKeyId);
    const now = start / 1000;
    expect(jwt?.payload).toEqual({
      aud: [issuer],
      exp: now + 3600,
      iat: now,
      iss: issuer,
      jti,
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot', uid: 'sa-uid-1' } },
      nbf: now,
      sub: 'system:serviceaccount:default:robot',
    });
    expect(jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(expiresAt).toBe(start + 3600_000);
  });

  it('authenticate as the service account', async () => {
    clock = start;
    put('serviceaccounts', 'default', 'robot', 'sa-uid-1');
    const { token, jti } = issue();
    const validated = await validate(token);
    expect(validated?.user).toEqual({
      name: 'system:serviceaccount:default:robot',
      uid: 'sa-uid-1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${jti}`] },
    });
    expect(validated?.audiences).toEqual([issuer]);
  });

  it('leave bearer tokens that are not ours to other authenticators', async () => {
    expect(await validate('not-a-jwt')).toBeUndefined();
    const other = issueServiceAccountToken({ ...settings, issuers: ['https://elsewhere'] }, { serviceAccount, audiences: [issuer], expirationSeconds: 3600 });
    expect(await validate(other.token)).toBeUndefined();
  });

  it('refuse a tampered token and one signed by another key', async () => {
    clock = start;
    put('serviceaccounts', 'default', 'robot', 'sa-uid-1');
    const [header, payload, signature] = issue().token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url')}.${signature}`;
    await expect(validate(tampered)).rejects.toThrow('error in cryptographic primitive');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const foreign = issueServiceAccountToken({ ...settings, keys: { ...keys, signingKey: privateKey } }, { serviceAccount, audiences: [issuer], expirationSeconds: 3600 });
    await expect(validate(foreign.token)).rejects.toThrow('error in cryptographic primitive');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`;
    await expect(validate(unsigned)).rejects.toThrow('error in cryptographic primitive');
  });

  it('refuse an expired token, past the 60 s leeway', async () => {
    clock = start;
    put('serviceaccounts', 'default', 'robot', 'sa-uid-1');
    const { token } = issue({ expirationSeconds: 600 });
    clock = start + 600_000 + 59_000;
    expect((await validate(token))?.user.name).toBe('system:serviceaccount:default:robot');
    clock = start + 600_000 + 61_000;
    await expect(validate(token)).rejects.toThrow('service account token has expired');
    clock = start;
  });

  it('refuse a token for another audience', async () => {
    clock = start;
    put('serviceaccounts', 'default', 'robot', 'sa-uid-1');
    const { token } = issue({ audiences: ['vault'] });
    await expect(validate(token)).rejects.toThrow(`token audiences ["vault"] is invalid for the target audiences ["${issuer}"]`);
    expect((await validate(token, ['vault', 'other']))?.audiences).toEqual(['vault']);
  });

  it('refuse a token once its service account is deleted or recreated with another uid', async () => {
    clock = start;
    put('serviceaccounts', 'default', 'robot', 'sa-uid-1');
    const { token } = issue();
    objects.delete('serviceaccounts/default/robot');
    await expect(validate(token)).rejects.toThrow('serviceaccounts "robot" not found');
    put('serviceaccounts', 'default', 'robot', 'sa-uid-2');
    await expect(validate(token)).rejects.toThrow('service account UID (sa-uid-2) does not match claim (sa-uid-1)');
    put('serviceaccounts', 'default', 'robot', 'sa-uid-1', { metadata: { name: 'robot', namespace: 'default', uid: 'sa-uid-1', deletionTimestamp: new Date(start - 120_000).toISOString() } });
    await expect(validate(token)).rejects.toThrow('service account default/robot has been deleted');
  });

  it('follow the bound object: pod extras, gone or replaced secrets refuse', async () => {
    clock = start;
    put('serviceaccounts', 'default', 'robot', 'sa-uid-1');
    put('pods', 'default', 'web', 'pod-uid');
    const podBound = issue({ pod: { name: 'web', uid: 'pod-uid' }, node: { name: 'node-1', uid: 'node-uid' } });
    expect((await validate(podBound.token))?.user.extra).toMatchObject({
      'authentication.kubernetes.io/pod-name': ['web'],
      'authentication.kubernetes.io/pod-uid': ['pod-uid'],
      'authentication.kubernetes.io/node-name': ['node-1'],
      'authentication.kubernetes.io/node-uid': ['node-uid'],
    });
    put('secrets', 'default', 'bound', 'secret-uid');
    const secretBound = issue({ secret: { name: 'bound', uid: 'secret-uid' } });
    expect((await validate(secretBound.token))?.user.name).toBe('system:serviceaccount:default:robot');
    put('secrets', 'default', 'bound', 'secret-uid-2');
    await expect(validate(secretBound.token)).rejects.toThrow('secret UID (secret-uid-2) does not match service account secret ref claim (secret-uid)');
    objects.delete('secrets/default/bound');
    await expect(validate(secretBound.token)).rejects.toThrow('service account token has been invalidated');
    objects.delete('pods/default/web');
    await expect(validate(podBound.token)).rejects.toThrow('service account token has been invalidated');
  });
});
