import { randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';

type Hold = 'hang' | 'fail';

/**
 * An HTTP front of the real registry that spoils the first registration of every subject (POST
 * /subjects/<subject>/versions): it never answers it, or answers 503. Every other request, and
 * the second registration of a subject, goes through.
 */
async function spoilingFront(target: URL, hold: Hold) {
  const spoiled = new Set<string>();
  const held: ServerResponse[] = [];
  const server: Server = createServer((incoming: IncomingMessage, answer: ServerResponse) => {
    const registration = incoming.method === 'POST' && /\/subjects\/[^/]+\/versions$/.test(incoming.url ?? '');
    if (registration && !spoiled.has(incoming.url!)) {
      spoiled.add(incoming.url!);
      incoming.resume();
      if (hold === 'hang') held.push(answer);
      else answer.writeHead(503, { 'content-type': 'application/json' }).end('{"error_code":50301,"message":"busy"}');
      return;
    }
    const forwarded = request({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answered) => {
      answer.writeHead(answered.statusCode ?? 502, answered.headers);
      answered.pipe(answer);
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`,
    spoiled,
    close: async () => {
      for (const answer of held) answer.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Processes starting together on a busy registry saw some of their ~170 start-up requests pass
 * the 5 s deadline, and the start stopped on the first one. Registering is idempotent: a subject
 * whose registration was not answered in time, or answered 5xx, is tried again.
 */
describe('registering when the registry answers a request late or with a 5xx', () => {
  const registry = new URL(inject('stack').schemaRegistryUrl);
  const schemas = loadSchemaCatalog();
  let front: Awaited<ReturnType<typeof spoilingFront>> | undefined;
  afterEach(async () => front?.close());

  for (const hold of ['hang', 'fail'] as const) {
    it(`registers every subject though the first try of each was ${hold === 'hang' ? 'never answered' : 'answered 503'}`, async () => {
      front = await spoilingFront(registry, hold);
      const prefix = `slow-${randomUUID()}.`;
      await registryCodec(front.url, schemas, { timeoutMs: 300 }).prepare((name) => `${prefix}${name}`);
      expect(front.spoiled.size).toBe(schemas.size);
      // Asked subject by subject: the registry lists at most 1,000 subjects, and a shared one holds more.
      for (const schema of schemas.values()) {
        const versions = await fetch(`${registry.href.replace(/\/$/, '')}/subjects/${encodeURIComponent(`${prefix}${schema.topic}-${schema.fullName}`)}/versions`);
        expect(await versions.json()).toEqual([1]);
      }
    });
  }
});
