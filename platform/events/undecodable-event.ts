/**
 * An event of the log that cannot be decoded (not in the wire format, a schema the registry does
 * not have, a body that is not its schema's), named by its place in the log: a projection stops
 * its partition there, and the operator's way past it needs the offset (README, "An event that
 * cannot be decoded"). Both logs, and their bounded reads (replay, export), fail with it.
 */
export class UndecodableEventError extends Error {
  constructor(readonly topic: string, readonly partition: number, readonly offset: string, cause: unknown) {
    super(
      `the event at ${topic}/${partition} offset ${offset} cannot be decoded (${(cause as Error).message ?? String(cause)}); nothing past it in its partition is read until it decodes or the reader is moved past it (README, "An event that cannot be decoded")`,
      { cause },
    );
    this.name = 'UndecodableEventError';
  }
}
