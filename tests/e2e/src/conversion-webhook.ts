import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RestClient } from '@kapi/client';
import { generateCertificateAuthority, issueServingCertificate } from '@kapi/server';
import { customResourceDefinition } from './crd-fixtures.js';
import { kubectl, startServer, type TestServer } from './harness.js';

/** One object of a ConversionReview. */
export type ReviewObject = Record<string, unknown> & { apiVersion: string; spec?: Record<string, unknown> };

/** A ConversionReview as the webhook received it. */
export interface Review {
  kind: string;
  apiVersion: string;
  request: { uid: string; desiredAPIVersion: string; objects: ReviewObject[] };
}

/**
 * A running conversion webhook over HTTPS converting `Box` objects (v1 `spec.size` <-> v2 `spec.dimensions.size`,
 * labelling v2 objects `converted: v2`).
 */
export interface ConversionWebhook {
  port: number;
  /** The CA of its serving certificate, base64 (a CRD's `caBundle`). */
  caBundle: string;
  /** Every review received, in order. */
  reviews: Review[];
  /** Awaited before a review is answered (to hold answers). */
  hold?: ((review: Review) => Promise<void>) | undefined;
  /** Answers instead of converting (to fail). */
  respond?: ((review: Review) => unknown) | undefined;
  close(): Promise<void>;
}

function convert(object: ReviewObject, desired: string): Record<string, unknown> {
  const spec = object.spec ?? {};
  if (desired.endsWith('/v2')) {
    const metadata = { ...(object['metadata'] as object), labels: { converted: 'v2' } };
    return { ...object, apiVersion: desired, spec: { dimensions: { size: spec['size'] } }, metadata };
  }
  const dimensions = (spec['dimensions'] ?? {}) as Record<string, unknown>;
  return { ...object, apiVersion: desired, spec: { size: dimensions['size'] } };
}

/** Starts the webhook on loopback, serving a certificate for `hosts` (IPs or DNS names). */
export async function startConversionWebhook(hosts: string[]): Promise<ConversionWebhook> {
  const ca = generateCertificateAuthority({ commonName: 'webhook-ca' });
  const serving = issueServingCertificate(ca, { hosts });
  const webhook: ConversionWebhook = {
    port: 0,
    caBundle: Buffer.from(ca.certificatePem).toString('base64'),
    reviews: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer({ key: serving.privateKeyPem, cert: serving.certificatePem }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      webhook.reviews.push(review);
      const { uid, desiredAPIVersion, objects } = review.request;
      void (webhook.hold?.(review) ?? Promise.resolve()).then(() => {
        response.setHeader('content-type', 'application/json');
        const convertedObjects = objects.map((object) => convert(object, desiredAPIVersion));
        const answer = webhook.respond?.(review) ?? { ...review, response: { uid, convertedObjects, result: { status: 'Success' } } };
        response.end(JSON.stringify(answer));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  webhook.port = (server.address() as AddressInfo).port;
  return webhook;
}

/** A two-version CRD (`v1` and `v2`, `storage` stored: default `v1`) of kind `kind` converted by the webhook at `clientConfig`. */
export function webhookConvertedCRD(
  group: string,
  kind: string,
  clientConfig: Record<string, unknown>,
  storage = 'v1',
): Record<string, unknown> {
  const integer = { type: 'integer' };
  return customResourceDefinition({
    group,
    kind,
    plural: `${kind.toLowerCase()}es`,
    versions: ['v1', 'v2'],
    storage,
    specs: {
      v1: { type: 'object', properties: { size: integer } },
      v2: { type: 'object', properties: { dimensions: { type: 'object', properties: { size: integer } } } },
    },
    conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig } },
  });
}

/** A server serving the `Box` CRD of `group`, converted by a webhook on loopback. */
export interface WebhookConvertedServer {
  server: TestServer;
  client: RestClient;
  webhook: ConversionWebhook;
  /** The webhook's clientConfig (a URL on loopback). */
  clientConfig: Record<string, unknown>;
  /** Stops the server, then the webhook. */
  stop(): Promise<void>;
}

/** Starts the webhook and a server (with `args`) and applies the `Box` CRD of `group` (`v1` stored), Established. */
export async function startWebhookConvertedServer(group: string, args: string[] = []): Promise<WebhookConvertedServer> {
  const webhook = await startConversionWebhook(['127.0.0.1']);
  const server = await startServer({ args });
  const clientConfig = { url: `https://127.0.0.1:${webhook.port}/convert`, caBundle: webhook.caBundle };
  const stop = async () => {
    await server.stop();
    await webhook.close();
  };
  try {
    await kubectl(server, ['apply', '-f', '-'], JSON.stringify(webhookConvertedCRD(group, 'Box', clientConfig)));
    await kubectl(server, ['wait', '--for=condition=Established', `crd/boxes.${group}`, '--timeout=30s']);
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, client: server.client(), webhook, clientConfig, stop };
}
