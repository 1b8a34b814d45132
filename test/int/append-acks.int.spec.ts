import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { newEvent } from '../../commands/append.js';
import type { EventLog } from '../../platform/events/event-log.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { EventType } from '../../schemas/generated/events.js';
import { offerServed } from '../support/serves.js';

const PRODUCE_API_KEY = 0;

/**
 * The `acks` of every Produce request in the bytes a client sent (Kafka's framing: a 4-byte
 * size, then api_key, api_version, correlation_id, client_id; a Produce body of version 3 or
 * later opens with transactional_id, then acks).
 */
function produceAcks(sent: Buffer): number[] {
  const acks: number[] = [];
  for (let at = 0; at + 4 <= sent.length; ) {
    const size = sent.readInt32BE(at);
    const request = sent.subarray(at + 4, at + 4 + size);
    at += 4 + size;
    if (request.length < size || request.readInt16BE(0) !== PRODUCE_API_KEY) continue;
    expect(request.readInt16BE(2)).toBeGreaterThanOrEqual(3);
    let body = 8 + 2 + Math.max(0, request.readInt16BE(8));
    const transactionalIdLength = request.readInt16BE(body);
    body += 2 + Math.max(0, transactionalIdLength);
    acks.push(request.readInt16BE(body));
  }
  return acks;
}

/**
 * An append is acknowledged only once every in-sync copy holds it (acks=all, -1): read from the
 * Produce requests on the wire, since a single test broker acknowledges acks=1 and acks=all alike.
 */
describe('the acks appends ask for', () => {
  const stack = inject('stack');
  /** The bytes the event log's client sent, per connection. */
  const sent = new Map<Socket, Buffer[]>();
  let eventLog: EventLog | undefined;
  afterAll(async () => {
    await eventLog?.close();
  });

  /** A connection as kafkajs' own, whose writes are also kept. */
  function tappedSocket({ host, port, onConnect }: { host: string; port: number; onConnect: () => void }): Socket {
    const socket = connect({ host, port }, onConnect);
    const chunks: Buffer[] = [];
    sent.set(socket, chunks);
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(chunk)) chunks.push(chunk);
      return write(chunk, ...rest);
    }) as Socket['write'];
    return socket;
  }

  it('is all (-1) on every produce request', async () => {
    eventLog = await kafkaEventLog(registryCodec(stack.schemaRegistryUrl, loadSchemaCatalog()), {
      brokers: stack.kafkaBrokers,
      topicPrefix: `acks-${randomBytes(4).toString('hex')}.`,
      socketFactory: tappedSocket,
    });
    await eventLog.ensureTopics([{ topic: 'serves', partitions: 2 }]);
    const appends = Array.from({ length: 5 }, () => {
      const served = offerServed('https://go.example', { offer_id: randomBytes(8).toString('hex'), application_id: 'acks' });
      return eventLog!.append('serves', [newEvent(EventType.OfferServed, served.offer_instance_id, served)]);
    });
    expect(await Promise.all(appends)).toHaveLength(5);
    const acks = [...sent.values()].flatMap((chunks) => produceAcks(Buffer.concat(chunks)));
    expect(acks.length).toBeGreaterThan(0);
    expect(new Set(acks)).toEqual(new Set([-1]));
  });
});
