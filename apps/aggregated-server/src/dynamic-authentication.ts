import type { RestClient } from '@kapi/client';
import type { Authenticator } from '@kapi/filters';
import { loadAuthenticationConfig, type AuthenticationConfig } from './authentication-config.js';
import { tokenReviewAuthenticator } from './delegated-authentication.js';
import type { AggregatedServerOptions } from './options.js';
import { clientCertificateAuthenticator } from './client-certificate-authenticator.js';
import { requestHeaderAuthenticator } from './request-header-authenticator.js';

/**
 * Delegated authentication whose CAs and header settings follow the main server's ConfigMap (upstream's
 * dynamic request-header and client-CA controllers): re-read every interval, the authenticators and the
 * TLS trust (through `onChange`) switch when it changes. Flags stay fixed.
 */
export class DynamicAuthentication {
  private current: Authenticator[] = [];
  private text = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: Array<(config: AuthenticationConfig) => void> = [];
  private readonly tokenReview: Authenticator;

  constructor(
    private readonly options: AggregatedServerOptions,
    private readonly main: RestClient,
  ) {
    this.tokenReview = tokenReviewAuthenticator(main);
  }

  /** The config last loaded. */
  config: AuthenticationConfig = {};

  /** Loads the config once (call before serving). */
  async load(): Promise<void> {
    const config = await loadAuthenticationConfig(this.options, this.main);
    const text = JSON.stringify(config);
    if (text === this.text) return;
    this.text = text;
    this.config = config;
    // Front-proxy headers first, then client certificates, then bearer tokens, as upstream's union.
    const list: Authenticator[] = [];
    if (config.requestHeader) list.push(requestHeaderAuthenticator(config.requestHeader));
    if (config.clientCA) list.push(clientCertificateAuthenticator(config.clientCA));
    list.push(this.tokenReview);
    this.current = list;
    for (const listener of this.listeners) listener(config);
  }

  /** Calls `listener` with each new config. */
  onChange(listener: (config: AuthenticationConfig) => void): void {
    this.listeners.push(listener);
  }

  /** One authenticator that asks the current ones in turn (the first user wins; errors when none answers). */
  readonly authenticator: Authenticator = async (request) => {
    const errors: unknown[] = [];
    for (const authenticate of this.current) {
      try {
        const user = await authenticate(request);
        if (user) return user;
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
    return undefined;
  };

  /** Re-reads the ConfigMap every `intervalMs` (errors keep the last config). */
  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.load().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  /** Stops re-reading. */
  stop(): void {
    clearInterval(this.timer);
  }
}
