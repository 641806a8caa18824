export {
  defaultCertificateHosts,
  ensureCertificates,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
  readCertificatePair,
  writeCertificatePair,
} from './certificates.js';
export type { CertificateAndKey, ClientCertificateOptions, EnsureCertificatesOptions, ServerCertificates } from './certificates.js';
