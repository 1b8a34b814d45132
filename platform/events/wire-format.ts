/** Confluent wire format: magic byte 0, a big-endian 4-byte schema id, then the Avro binary body. */
const MAGIC_BYTE = 0;
export const WIRE_HEADER_LENGTH = 5;

export function toWireFormat(schemaId: number, body: Buffer): Buffer {
  const header = Buffer.alloc(WIRE_HEADER_LENGTH);
  header.writeUInt8(MAGIC_BYTE, 0);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, body]);
}

/** The schema id of a message in the wire format; its body starts at WIRE_HEADER_LENGTH. */
export function wireSchemaId(message: Buffer): number {
  if (message.length < WIRE_HEADER_LENGTH || message[0] !== MAGIC_BYTE) {
    throw new Error('message is not in the Confluent wire format (magic byte 0 + schema id)');
  }
  return message.readUInt32BE(1);
}
