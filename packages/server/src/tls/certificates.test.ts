import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, request as httpsRequest, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCertificateHosts, ensureCertificates, ensureClientCertificate, generateCertificateAuthority, issueClientCertificate, type CertificateAndKey, type ServerCertificates } from './certificates.js';

const day = 24 * 60 * 60 * 1000;

interface Answer {
  status: number;
  body: string;
}

async function withHttpsServer<T>(options: ServerOptions, run: (port: number) => Promise<T>): Promise<T> {
  const server = createServer(options, (request, response) => {
    const socket = request.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    response.end(JSON.stringify({ authorized: socket.authorized, subject: peer && 'subject' in peer ? peer.subject : null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await run((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function get(options: { port: number; host: string; ca: string; client?: CertificateAndKey }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        ...(options.host === '127.0.0.1' ? {} : { servername: options.host }),
        port: options.port,
        path: '/',
        ca: options.ca,
        ...(options.client ? { cert: options.client.certificatePem, key: options.client.privateKeyPem } : {}),
        agent: false,
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('ensureCertificates', () => {
  let dataDir: string;
  let first: ServerCertificates;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'kapi-tls-'));
    first = ensureCertificates(dataDir, { hosts: ['127.0.0.1', 'localhost'] });
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes a CA and a serving certificate with DNS and IP SANs, keys mode 0600', () => {
    expect(first.generated).toEqual({ ca: true, serving: true });
    for (const name of ['ca.key', 'apiserver.key']) expect(statSync(join(dataDir, name)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, 'ca.crt'), 'utf8')).toBe(first.ca.certificatePem);
    const ca = new X509Certificate(first.ca.certificatePem);
    expect(ca.subject).toBe('CN=kapi-ca');
    expect(ca.ca).toBe(true);
    const serving = new X509Certificate(first.serving.certificatePem);
    expect(serving.ca).toBe(false);
    expect(serving.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost');
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('serves HTTPS verified against the CA, for the IP and the DNS name', async () => {
    await withHttpsServer({ cert: first.serving.certificatePem, key: first.serving.privateKeyPem }, async (port) => {
      expect((await get({ port, host: '127.0.0.1', ca: first.ca.certificatePem })).status).toBe(200);
      expect((await get({ port, host: 'localhost', ca: first.ca.certificatePem })).status).toBe(200);
      await expect(get({ port, host: 'example.com', ca: first.ca.certificatePem })).rejects.toThrow(/altnames|Hostname/i);
      const stranger = ensureCertificates(join(dataDir, 'other'), { hosts: ['127.0.0.1'] });
      await expect(get({ port, host: '127.0.0.1', ca: stranger.ca.certificatePem })).rejects.toThrow(/certificate/i);
    });
  });

  it('reuses existing files, and re-issues only the serving certificate when hosts change', () => {
    const again = ensureCertificates(dataDir, { hosts: ['localhost', '127.0.0.1', 'localhost'] });
    expect(again.generated).toEqual({ ca: false, serving: false });
    expect(again.serving.certificatePem).toBe(first.serving.certificatePem);
    const moved = ensureCertificates(dataDir, { hosts: ['127.0.0.1', 'localhost', 'kapi.internal'] });
    expect(moved.generated).toEqual({ ca: false, serving: true });
    expect(moved.ca.certificatePem).toBe(first.ca.certificatePem);
    expect(new X509Certificate(moved.serving.certificatePem).subjectAltName).toContain('DNS:kapi.internal');
    first = moved;
  });

  it('re-issues a serving certificate that expires within 30 days', () => {
    const now = Date.now();
    const later = ensureCertificates(dataDir, { hosts: ['127.0.0.1', 'localhost', 'kapi.internal'], now: () => now + 340 * day });
    expect(later.generated).toEqual({ ca: false, serving: true });
    expect(Date.parse(new X509Certificate(later.serving.certificatePem).validTo)).toBeGreaterThan(now + 600 * day);
  });

  it('covers IPv4, IPv6 loopback, localhost and the hostname by default', () => {
    const hosts = defaultCertificateHosts();
    expect(hosts.slice(0, 3)).toEqual(['127.0.0.1', '::1', 'localhost']);
    const certificates = ensureCertificates(join(dataDir, 'defaults'), { hosts });
    const san = new X509Certificate(certificates.serving.certificatePem).subjectAltName ?? '';
    expect(san).toContain('IP Address:0:0:0:0:0:0:0:1');
    expect(san).toContain(`DNS:${hosts[3] ?? 'localhost'}`);
    expect(ensureCertificates(join(dataDir, 'defaults'), { hosts }).generated).toEqual({ ca: false, serving: false });
  });

  it('issues an admin client certificate accepted in a client-certificate handshake', async () => {
    const admin = issueClientCertificate(first.ca, { commonName: 'kubernetes-admin', organizations: ['system:masters'] });
    const certificate = new X509Certificate(admin.certificatePem);
    expect(certificate.subject).toBe('O=system:masters\nCN=kubernetes-admin');
    expect(certificate.verify(new X509Certificate(first.ca.certificatePem).publicKey)).toBe(true);
    const options: ServerOptions = {
      cert: first.serving.certificatePem,
      key: first.serving.privateKeyPem,
      ca: first.ca.certificatePem,
      requestCert: true,
      rejectUnauthorized: false,
    };
    await withHttpsServer(options, async (port) => {
      const answer = await get({ port, host: 'localhost', ca: first.ca.certificatePem, client: admin });
      expect(JSON.parse(answer.body)).toEqual({ authorized: true, subject: { O: 'system:masters', CN: 'kubernetes-admin' } });
      const anonymous = await get({ port, host: 'localhost', ca: first.ca.certificatePem });
      expect(JSON.parse(anonymous.body)).toMatchObject({ authorized: false });
    });
  });

  it('keeps a client certificate across calls, and issues a new one for another CA, subject, or when expiring', () => {
    const paths = [join(dataDir, 'admin.crt'), join(dataDir, 'admin.key')] as const;
    const admin = { commonName: 'kubernetes-admin', organizations: ['system:masters'] };
    const issued = ensureClientCertificate(first.ca, ...paths, admin);
    expect(new X509Certificate(issued.certificatePem).subject).toBe('O=system:masters\nCN=kubernetes-admin');
    expect(statSync(paths[1]).mode & 0o777).toBe(0o600);
    expect(readFileSync(paths[0], 'utf8')).toBe(issued.certificatePem);
    const kept = ensureClientCertificate(first.ca, ...paths, admin);
    expect(kept).toEqual(issued);

    const otherGroups = ensureClientCertificate(first.ca, ...paths, { ...admin, organizations: ['system:masters', 'ops'] });
    expect(otherGroups.privateKeyPem).not.toBe(issued.privateKeyPem);
    expect(new X509Certificate(otherGroups.certificatePem).subject).toBe('O=system:masters\nO=ops\nCN=kubernetes-admin');

    const otherCa = generateCertificateAuthority();
    const reissued = ensureClientCertificate(otherCa, ...paths, admin);
    expect(new X509Certificate(reissued.certificatePem).verify(new X509Certificate(otherCa.certificatePem).publicKey)).toBe(true);

    const now = Date.now();
    const renewed = ensureClientCertificate(otherCa, ...paths, { ...admin, now: () => now + 340 * day });
    expect(renewed.certificatePem).not.toBe(reissued.certificatePem);
    expect(Date.parse(new X509Certificate(renewed.certificatePem).validTo)).toBeGreaterThan(now + 600 * day);
  });
});
