/** Confluent wire format: magic byte 0, a big-endian 4-byte schema id, then the Avro binary body. */
const MAGIC_BYTE = 0;
const HEADER_LENGTH = 5;

export function toWireFormat(schemaId: number, body: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_LENGTH);
  header.writeUInt8(MAGIC_BYTE, 0);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, body]);
}

export function fromWireFormat(message: Buffer): { schemaId: number; body: Buffer } {
  if (message.length < HEADER_LENGTH || message.readUInt8(0) !== MAGIC_BYTE) {
    throw new Error('message is not in the Confluent wire format (magic byte 0 + schema id)');
  }
  return { schemaId: message.readUInt32BE(1), body: message.subarray(HEADER_LENGTH) };
}
