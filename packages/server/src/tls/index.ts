export {
  defaultCertificateHosts,
  ensureCertificates,
  ensureClientCertificate,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  readCertificatePair,
  writeCertificatePair,
} from './certificates.js';
export type { CertificateAndKey, ClientCertificateOptions, EnsureCertificatesOptions, EnsureClientCertificateOptions, ServerCertificates } from './certificates.js';
