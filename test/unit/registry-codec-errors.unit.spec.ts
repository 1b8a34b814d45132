import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';

/** A port nothing listens on: bound, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the registry codec, when the registry cannot give a schema', () => {
  it('names SCHEMA_REGISTRY_URL and the schema id (the client calls a refused connection an HTTP 400)', async () => {
    const codec = registryCodec(`http://127.0.0.1:${await closedPort()}/apis/ccompat/v7`, loadSchemaCatalog(), { timeoutMs: 2_000 });
    // Magic byte 0, schema id 999999, then a body.
    const message = Buffer.concat([Buffer.from([0]), Buffer.from([0x00, 0x0f, 0x42, 0x3f]), Buffer.from([2, 0x61])]);
    await expect(codec.decode(message)).rejects.toThrow(/^the schema registry \(SCHEMA_REGISTRY_URL\) did not give schema id 999999: /);
  });
});
