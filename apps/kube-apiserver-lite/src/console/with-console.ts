import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError } from '@kapi/apimachinery';
import { requestTarget, writeStatus, type Filter } from '@kapi/filters';
import { CONSOLE_HTML } from './console-html.js';
import { CONSOLE_SCRIPT } from './console-script.js';

/** Where the console is served. */
export const CONSOLE_PATH = '/console/';

const assets: Record<string, { type: string; body: string }> = {
  '/console/': { type: 'text/html; charset=utf-8', body: CONSOLE_HTML },
  '/console/console.js': { type: 'text/javascript; charset=utf-8', body: CONSOLE_SCRIPT },
};

/**
 * The storage-version console at `/console/` (`--console`): a static page and its script, served after
 * authentication and authorization like any non-resource URL (RBAC: `get` on `/console/*`). The page reads
 * the API with the browser's own credentials, so the viewer's permissions decide what it shows.
 */
export function withConsole(): Filter {
  return (next) => (request: IncomingMessage, response: ServerResponse) => {
    const path = requestTarget(request).path;
    if (path !== '/console' && !path.startsWith(CONSOLE_PATH)) return next(request, response);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      writeStatus(response, StatusError.of(405, 'MethodNotAllowed', `the console only serves GET, not ${request.method ?? ''}`));
      return;
    }
    if (path === '/console') {
      response.writeHead(302, { Location: CONSOLE_PATH }).end();
      return;
    }
    const asset = assets[path];
    if (!asset) {
      writeStatus(response, StatusError.of(404, 'NotFound', 'the server could not find the requested resource'));
      return;
    }
    response.writeHead(200, {
      'Content-Type': asset.type,
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'",
      'X-Content-Type-Options': 'nosniff',
    });
    response.end(request.method === 'HEAD' ? undefined : asset.body);
  };
}
