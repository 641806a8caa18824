import { afterEach, describe, expect, it } from 'vitest';
import { StatusError } from '@kapi/apimachinery';
import { buildHandlerChain, type Handler } from './handler.js';
import { withPanicRecovery } from './with-panic-recovery.js';
import { serve, type TestServer } from './test-support.js';

describe('withPanicRecovery', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('turns a synchronous throw into a 500 InternalError Status', async () => {
    const caught: unknown[] = [];
    const handler: Handler = () => {
      throw new Error('boom');
    };
    server = await serve(
      buildHandlerChain([withPanicRecovery({ onError: (error) => caught.push(error) })], handler),
    );
    const response = await server.send('/x');
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.json).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'InternalError',
      code: 500,
      message: 'Internal error occurred: boom',
    });
    expect(caught).toHaveLength(1);
  });

  it('keeps the Status of a rejected StatusError, with Retry-After', async () => {
    const handler: Handler = async () => {
      await Promise.resolve();
      throw StatusError.tooManyRequests('slow down', 3);
    };
    server = await serve(buildHandlerChain([withPanicRecovery()], handler));
    const response = await server.send('/x');
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('3');
    expect(response.json).toMatchObject({ reason: 'TooManyRequests', message: 'slow down' });
  });

  it('passes successful responses through', async () => {
    server = await serve(
      buildHandlerChain([withPanicRecovery()], (_request, response) => {
        response.writeHead(201);
        response.end('made');
      }),
    );
    const response = await server.send('/x');
    expect(response.status).toBe(201);
    expect(response.text).toBe('made');
  });

  it('cuts the connection when the response had already started', async () => {
    const handler: Handler = async (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.write('partial');
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('late failure');
    };
    server = await serve(buildHandlerChain([withPanicRecovery()], handler));
    await expect(server.send('/x')).rejects.toThrow();
  });
});
