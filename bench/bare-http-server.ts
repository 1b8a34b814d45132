import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A bench's machine floor: a bare node:http server (no framework, no backend) that answers every
 * request with the bytes a `PUT` gave it. What a load generator measures against it at a rate is
 * the latency this machine and the generator add to any answer of that size, whatever serves it.
 */
export function serveBareAnswer(): void {
  let answer = Buffer.alloc(0);
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'PUT') answer = Buffer.concat(chunks);
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': request.method === 'PUT' ? 2 : answer.length });
      response.end(request.method === 'PUT' ? '{}' : answer);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
