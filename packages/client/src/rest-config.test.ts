import { describe, expect, it } from 'vitest';
import { kubeconfigFromText } from './rest-config.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('kubeconfigFromText', () => {
  const text = `
apiVersion: v1
kind: Config
current-context: admin@kapi
clusters:
- name: kapi
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: ${b64('CA PEM')}
users:
- name: admin
  user:
    client-certificate-data: ${b64('CERT PEM')}
    client-key-data: ${b64('KEY PEM')}
- name: robot
  user:
    token: abc
contexts:
- name: admin@kapi
  context: { cluster: kapi, user: admin }
- name: robot@kapi
  context: { cluster: kapi, user: robot, namespace: team-a }
`;

  it('reads the current context with decoded certificate data', () => {
    expect(kubeconfigFromText(text)).toEqual({
      server: 'https://127.0.0.1:6443',
      ca: 'CA PEM',
      cert: 'CERT PEM',
      key: 'KEY PEM',
    });
  });

  it('reads a named context with a token and namespace', () => {
    expect(kubeconfigFromText(text, 'robot@kapi')).toEqual({
      server: 'https://127.0.0.1:6443',
      ca: 'CA PEM',
      token: 'abc',
      namespace: 'team-a',
    });
  });

  it('fails clearly on a missing context', () => {
    expect(() => kubeconfigFromText(text, 'nope')).toThrow('context "nope" not found');
  });
});
