import { request } from 'node:https';
import type { CustomResourceDefinition } from '../crd/types.js';

/** A webhook's in-cluster Service (`clientConfig.service`, port defaulted). */
export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
}

/**
 * Resolves a Service reference to an address to dial (upstream's webhook ServiceResolver, e.g. through
 * the Service's EndpointSlices). Throws an Error whose message explains a failure (upstream's texts:
 * `service "<name>" not found`, `no endpoints available for service "<name>"`).
 */
export type ServiceResolver = (service: ServiceReference) => { host: string; port: number } | Promise<{ host: string; port: number }>;

/** What a webhook POST answered. */
export interface WebhookAnswer {
  status: number;
  body: string;
}

/** Upstream's conversion webhook timeout. */
const CONVERSION_WEBHOOK_TIMEOUT_SECONDS = 30;

/** Where a webhook is called (upstream's WebhookClientConfig): a `url`, or an in-cluster `service`; `caBundle` PEM, base64. */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  caBundle?: string;
}

/**
 * The HTTPS client of one webhook (`clientConfig`): `url`, or `service` dialled at the address its
 * resolver gives with TLS server name `<name>.<namespace>.svc`; `caBundle` is trusted (else the system
 * roots). Each call gives up after `timeoutSeconds` (sent as the `timeout` query parameter, as upstream).
 * Nothing blocks: the event loop serves other requests while it waits.
 */
export class WebhookClient {
  /** The URL the webhook is called at, as upstream names it in errors (with `?timeout=<n>s`). */
  readonly url: string;
  private readonly target: URL;
  private readonly service: ServiceReference | undefined;
  private readonly ca: string | undefined;

  constructor(
    config: WebhookClientConfig,
    private readonly resolveService?: ServiceResolver,
    private readonly timeoutSeconds = CONVERSION_WEBHOOK_TIMEOUT_SECONDS,
  ) {
    const service = config.service;
    if (service) this.service = { namespace: service.namespace, name: service.name, port: service.port ?? 443 };
    this.target = new URL(
      config.url ??
        (service ? `https://${service.name}.${service.namespace}.svc:${this.service?.port ?? 443}${service.path ?? ''}` : ''),
    );
    this.target.searchParams.set('timeout', `${timeoutSeconds}s`);
    // Go keeps an explicit :443 of the service's host, which WHATWG URLs drop.
    this.url = this.service
      ? `https://${this.target.hostname}:${this.service.port}${this.target.pathname}${this.target.search}`
      : this.target.toString();
    this.ca = config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  }

  /** The client of a CRD's conversion webhook (30 s timeout). */
  static forConversion(crd: CustomResourceDefinition, resolveService?: ServiceResolver): WebhookClient {
    return new WebhookClient(crd.spec.conversion?.webhook?.clientConfig ?? {}, resolveService);
  }

  /** POSTs a JSON body; rejects with `Post "<url>": <reason>` when no answer came. */
  async post(body: string): Promise<WebhookAnswer> {
    try {
      return await this.send(body);
    } catch (error) {
      throw new Error(`Post "${this.url}": ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async send(body: string): Promise<WebhookAnswer> {
    const target = this.target;
    let dial: { host: string; port: number; servername?: string } = {
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port || 443),
    };
    if (this.service) {
      if (!this.resolveService) throw new Error(`service "${this.service.name}" cannot be resolved by this server`);
      const address = await this.resolveService(this.service);
      dial = { ...address, servername: `${this.service.name}.${this.service.namespace}.svc` };
    }
    return new Promise<WebhookAnswer>((resolve, reject) => {
      const outgoing = request(
        {
          method: 'POST',
          host: dial.host,
          port: dial.port,
          path: `${target.pathname}${target.search}`,
          headers: { host: target.host, 'content-type': 'application/json', accept: 'application/json' },
          timeout: this.timeoutSeconds * 1000,
          ...(dial.servername ? { servername: dial.servername } : {}),
          ...(this.ca ? { ca: this.ca } : {}),
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          response.on('error', reject);
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error('context deadline exceeded')));
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}
