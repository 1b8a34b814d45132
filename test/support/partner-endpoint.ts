import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/**
 * A remote offer's partner endpoint that listens for the length of one test and records every
 * request it hears: a route that must never call a partner is checked against `calls`.
 */
export async function listeningPartnerEndpoint(): Promise<{ endpoint: string; calls: string[] }> {
  const calls: string[] = [];
  const server = createServer((request, response) => {
    calls.push(`${request.method} ${request.url}`);
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/offers`, calls };
}
