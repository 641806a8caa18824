/** Checks of the string formats a CRD schema may declare (kube-openapi's strfmt registry, as far as CRDs use it). */

const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const hostname =
  /^(?=.{1,253}$)[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;
const uuid = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const date = /^\d{4}-\d{2}-\d{2}$/;
const mac = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;
const email = /^[^\s@]+@[^\s@]+$/;
const duration = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w))+$/;

function isIPv6(value: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(value) || !value.includes(':')) return false;
  try {
    return new URL(`http://[${value}]/`).hostname.length > 0;
  } catch {
    return false;
  }
}

function isCIDR(value: string): boolean {
  const [address, prefix, extra] = value.split('/');
  if (address === undefined || prefix === undefined || extra !== undefined || !/^\d{1,3}$/.test(prefix))
    return false;
  if (ipv4.test(address)) return Number(prefix) <= 32;
  return isIPv6(address) && Number(prefix) <= 128;
}

function isURI(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** Format name -> check, for formats apimachinery's schema validation does not check itself. */
export const stringFormatChecks: Readonly<Record<string, (value: string) => boolean>> = {
  date: (value) => date.test(value) && !Number.isNaN(Date.parse(value)),
  uuid: (value) => uuid.test(value),
  uuid3: (value) => uuid.test(value),
  uuid4: (value) => uuid.test(value),
  uuid5: (value) => uuid.test(value),
  ipv4: (value) => ipv4.test(value),
  ipv6: isIPv6,
  cidr: isCIDR,
  mac: (value) => mac.test(value),
  hostname: (value) => hostname.test(value),
  email: (value) => email.test(value),
  uri: isURI,
  duration: (value) => duration.test(value),
};
