export {
  defaultCertificateHosts,
  ensureCertificates,
  generateCertificateAuthority,
  issueClientCertificate,
  issueServingCertificate,
} from './certificates.js';
export type { CertificateAndKey, ClientCertificateOptions, EnsureCertificatesOptions, ServerCertificates } from './certificates.js';
