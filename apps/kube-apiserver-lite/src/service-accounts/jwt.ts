import { createSign, createVerify, type KeyObject } from 'node:crypto';

/** A JWT in compact form, split and decoded but not verified. */
export interface DecodedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `<header>.<payload>` as sent: what the signature covers. */
  signingInput: string;
  signature: Buffer;
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** Signs `payload` with RS256 and the header `{ alg: 'RS256', kid }` (go-jose's field order). */
export function signJwt(payload: Record<string, unknown>, privateKey: KeyObject, keyId: string): string {
  const signingInput = `${base64url(JSON.stringify({ alg: 'RS256', kid: keyId }))}.${base64url(JSON.stringify(payload))}`;
  const signature = createSign('RSA-SHA256').update(signingInput).sign(privateKey);
  return `${signingInput}.${base64url(signature)}`;
}

/** Splits a compact JWS and decodes its header and payload; undefined when it is not one (no error). */
export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header = '', payload = '', signature = ''] = parts;
  const base64urlText = /^[A-Za-z0-9_-]*$/;
  if (!base64urlText.test(header) || !base64urlText.test(payload) || !base64urlText.test(signature)) return undefined;
  try {
    const decodedHeader: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    const decodedPayload: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!isRecord(decodedHeader) || !isRecord(decodedPayload)) return undefined;
    return { header: decodedHeader, payload: decodedPayload, signingInput: `${header}.${payload}`, signature: Buffer.from(signature, 'base64url') };
  } catch {
    return undefined;
  }
}

/** Whether an RS256 signature of `jwt` verifies with `publicKey` (any other `alg` never does). */
export function verifyJwtSignature(jwt: DecodedJwt, publicKey: KeyObject): boolean {
  if (jwt.header.alg !== 'RS256') return false;
  try {
    return createVerify('RSA-SHA256').update(jwt.signingInput).verify(publicKey, jwt.signature);
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
