import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { generateCertificateAuthority, issueServingCertificate } from '@kapi/server';

/** What the backend saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The client certificate chained to the request-header CA. */
  authorized: boolean;
  /** Common name of the client certificate. */
  clientCN: string | undefined;
}

const group = 'wardle.example.com';
const version = 'v1alpha1';

const resourceList = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${group}/${version}`,
  resources: [
    {
      name: 'flunders',
      singularName: 'flunder',
      namespaced: true,
      kind: 'Flunder',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    },
  ],
};

const openAPIPath = `/openapi/v3/apis/${group}/${version}`;
const openAPIDocument = {
  openapi: '3.0.0',
  info: { title: 'wardle', version: version },
  paths: {
    [`/apis/${group}/${version}/namespaces/{namespace}/flunders/{name}`]: {
      get: {
        operationId: 'readWardleV1alpha1NamespacedFlunder',
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': { group, version, kind: 'Flunder' },
        responses: {
          '200': {
            description: 'OK',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/com.example.wardle.v1alpha1.Flunder' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      'com.example.wardle.v1alpha1.Flunder': {
        type: 'object',
        description: 'A Flunder, served by the test backend.',
        properties: {
          apiVersion: { type: 'string', description: 'APIVersion of the object.' },
          kind: { type: 'string', description: 'Kind of the object.' },
          spec: {
            type: 'object',
            description: 'FlunderSpec is what a flunder should be.',
            properties: { reference: { type: 'string', description: 'Reference names another flunder.' } },
          },
        },
        'x-kubernetes-group-version-kind': [{ group, version, kind: 'Flunder' }],
      },
    },
  },
};

/** Its Swagger 2.0 document: one path of its group/version, and one of a group it does not serve through this APIService. */
const swaggerDocument = {
  swagger: '2.0',
  info: { title: 'wardle', version: 'v0' },
  paths: {
    [`/apis/${group}/${version}/namespaces/{namespace}/flunders/{name}`]: {
      get: { operationId: 'readWardleV1alpha1NamespacedFlunder', responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/com.example.wardle.v1alpha1.Flunder' } } } },
    },
    '/apis/elsewhere.example.com/v1/things': { get: { operationId: 'listElsewhereV1Thing', responses: { '200': { description: 'OK' } } } },
  },
  definitions: {
    'com.example.wardle.v1alpha1.Flunder': {
      type: 'object',
      description: 'A Flunder, served by the test backend.',
      'x-kubernetes-group-version-kind': [{ group, version, kind: 'Flunder' }],
    },
  },
};

const flunder = (name: string, resourceVersion: string) => ({
  apiVersion: `${group}/${version}`,
  kind: 'Flunder',
  metadata: { name, namespace: 'default', resourceVersion },
  spec: {},
});

/**
 * A small aggregated server for tests (node:https, its own CA, serving certificate for
 * `api.wardle.svc`): serves discovery, OpenAPI v2 and v3 of `wardle.example.com/v1alpha1` and `flunders` (list, get, watch),
 * asks for client certificates signed by the given request-header CA, and records every request.
 */
export class AggregatedBackend {
  readonly ca = generateCertificateAuthority({ commonName: 'wardle-ca' });
  private readonly serving = issueServingCertificate(this.ca, { hosts: ['api.wardle.svc'] });
  readonly seen: SeenRequest[] = [];
  /** Open watch responses: the test pushes events into them. */
  readonly watches = new Set<ServerResponse>();
  /** Watch requests whose client connection closed. */
  closedWatches = 0;
  private server: Server | undefined;
  port = 0;

  constructor(private readonly requestHeaderCA: string) {}

  /** Listens on 127.0.0.1 (on `port` when given: a restart keeps its address). */
  async start(port = this.port): Promise<void> {
    const server = createServer(
      { key: this.serving.privateKeyPem, cert: this.serving.certificatePem, ca: this.requestHeaderCA, requestCert: true, rejectUnauthorized: false },
      (request, response) => this.serve(request, response),
    );
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.server = server;
  }

  /** Stops listening and cuts every connection. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const watch of this.watches) watch.destroy();
    this.watches.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The requests seen for a path (without query). */
  requestsTo(path: string): SeenRequest[] {
    return this.seen.filter((seen) => seen.url.split('?')[0] === path);
  }

  /** Writes one watch event (a JSON line) to every open watch. */
  sendEvent(type: string, name: string, resourceVersion: string): void {
    for (const watch of this.watches) watch.write(`${JSON.stringify({ type, object: flunder(name, resourceVersion) })}\n`);
  }

  private serve(request: IncomingMessage, response: ServerResponse): void {
    const socket = request.socket as TLSSocket;
    const certificate = socket.getPeerCertificate();
    this.seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      authorized: socket.authorized,
      clientCN: [certificate.subject?.CN].flat()[0],
    });
    const json = (code: number, body: unknown) => {
      response.writeHead(code, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (!socket.authorized || request.headers['x-remote-user'] === undefined) {
      json(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
      return;
    }
    const url = new URL(request.url ?? '/', 'https://backend');
    const path = url.pathname;
    if (path === `/apis/${group}/${version}`) return json(200, resourceList);
    if (path === '/openapi/v3') return json(200, { paths: { [`apis/${group}/${version}`]: { serverRelativeURL: `${openAPIPath}?hash=0123ABCD` } } });
    if (path === openAPIPath) return json(200, openAPIDocument);
    if (path === '/openapi/v2') return json(200, swaggerDocument);
    if (path === `/apis/${group}/${version}/namespaces/default/flunders` && url.searchParams.get('watch') === 'true') {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      response.flushHeaders();
      this.watches.add(response);
      response.once('close', () => {
        this.closedWatches++;
        this.watches.delete(response);
      });
      return;
    }
    if (path === `/apis/${group}/${version}/namespaces/default/flunders`) {
      return json(200, { apiVersion: `${group}/${version}`, kind: 'FlunderList', metadata: { resourceVersion: '7' }, items: [flunder('one', '5')] });
    }
    if (path === `/apis/${group}/${version}/namespaces/default/flunders/one`) return json(200, flunder('one', '5'));
    json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
  }
}
