import type { InstalledResource } from './discovery/index.js';
import type { OpenAPIV2Part } from './openapi/index.js';

/** Where and how to listen. */
export interface ListenOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * Serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN) with this key/cert; `clientCA` asks clients for
   * certificates (client-cert authentication). Without it the port serves plain HTTP/1.1.
   */
  tls?: { key: string | Buffer; cert: string | Buffer; clientCA?: string | Buffer };
}

/** Discovery served by other servers, merged into a server's own (see `addAggregatedDiscoverySource`). */
export interface AggregatedDiscoverySource {
  /** The resources, as discovery shows them (read on every discovery request). */
  resources(): InstalledResource[];
  /** `/openapi/v3` index entries: `apis/<group>/<version>` to `serverRelativeURL`. */
  openAPIV3Paths?(): Record<string, string>;
  /** Paths and definitions merged into `/openapi/v2`. */
  openAPIV2?(): OpenAPIV2Part[];
}

/** What the server's own controllers use to call it. */
export interface LoopbackClientConfig {
  /** e.g. `https://127.0.0.1:6443`. */
  url: string;
  bearerToken: string;
  /** The serving certificate, to trust when the server is HTTPS. */
  caData?: string;
}
