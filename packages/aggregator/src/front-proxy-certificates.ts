import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  generateCertificateAuthority,
  issueClientCertificate,
  readCertificatePair,
  writeCertificatePair,
  type CertificateAndKey,
} from '@kapi/server';

/** The common name of the aggregator's proxy client certificate (upstream's `--requestheader-allowed-names`). */
export const frontProxyClientName = 'front-proxy-client';

/** The front-proxy CA and the client certificate the aggregator presents to backends, with their files. */
export interface FrontProxyCertificates {
  ca: CertificateAndKey;
  client: CertificateAndKey;
  paths: { caCertificate: string; clientCertificate: string; clientKey: string };
}

/**
 * Makes sure `dataDir` holds a front-proxy CA (`front-proxy-ca.crt`/`.key`) and a client certificate
 * `front-proxy-client` it signed (`front-proxy-client.crt`/`.key`), as kubeadm lays them out: generated on
 * first start, reused afterwards (the client certificate is re-issued with a new CA).
 */
export function ensureFrontProxyCertificates(dataDir: string): FrontProxyCertificates {
  mkdirSync(dataDir, { recursive: true });
  const paths = {
    caCertificate: join(dataDir, 'front-proxy-ca.crt'),
    caKey: join(dataDir, 'front-proxy-ca.key'),
    clientCertificate: join(dataDir, 'front-proxy-client.crt'),
    clientKey: join(dataDir, 'front-proxy-client.key'),
  };
  let ca = readCertificatePair(paths.caCertificate, paths.caKey);
  let client = readCertificatePair(paths.clientCertificate, paths.clientKey);
  if (!ca) {
    ca = generateCertificateAuthority({ commonName: 'front-proxy-ca' });
    writeCertificatePair(ca, paths.caCertificate, paths.caKey);
    client = undefined;
  }
  if (!client) {
    client = issueClientCertificate(ca, { commonName: frontProxyClientName });
    writeCertificatePair(client, paths.clientCertificate, paths.clientKey);
  }
  return {
    ca,
    client,
    paths: { caCertificate: paths.caCertificate, clientCertificate: paths.clientCertificate, clientKey: paths.clientKey },
  };
}
