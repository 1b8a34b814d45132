import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy in front of one broker that fails on cue the way a broker that stops does: the
 * request it was sent arrives, the answer never comes back, and nothing answers for a while.
 */
export interface CuttingProxy {
  /** Where the proxy listens (127.0.0.1). */
  port: number;
  /**
   * The next answer any connection receives is dropped and that connection cut; from then on
   * every new connection is closed at once, until heal(). Resolves once an answer was dropped.
   */
  cutNextAnswer(): Promise<void>;
  /** Cuts every open connection and closes every new one at once, as a stopped server's port does, until heal(). */
  refuse(): void;
  /** Closes every new connection at once while the open ones go on (a server that takes no more sessions), until heal(). */
  refuseNew(): void;
  /** Requests still arrive, answers never come back (a hung server), until heal(). */
  swallow(): void;
  /** Nothing passes either way, on the open connections or on new ones (a network that stopped carrying anything), until heal(). */
  freeze(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function cuttingProxy(target: { host: string; port: number }): Promise<CuttingProxy> {
  const open = new Set<Socket>();
  let refusing = false;
  let swallowing = false;
  let freezing = false;
  let cutAnswer: (() => void) | undefined;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const server = createServer((client) => {
    track(client);
    if (refusing) {
      client.destroy();
      return;
    }
    const broker = connect(target);
    track(broker);
    const cutBoth = () => {
      client.destroy();
      broker.destroy();
    };
    client.on('close', cutBoth);
    broker.on('close', cutBoth);
    client.on('data', (chunk) => {
      if (!freezing) broker.write(chunk);
    });
    broker.on('data', (chunk) => {
      if (swallowing || freezing) return;
      if (cutAnswer) {
        const cut = cutAnswer;
        cutAnswer = undefined;
        refusing = true;
        cutBoth();
        cut();
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no port');

  return {
    port: address.port,
    cutNextAnswer: () => new Promise<void>((resolve) => (cutAnswer = resolve)),
    refuse() {
      refusing = true;
      for (const socket of open) socket.destroy();
    },
    refuseNew() {
      refusing = true;
    },
    swallow() {
      swallowing = true;
    },
    freeze() {
      freezing = true;
    },
    heal() {
      refusing = false;
      swallowing = false;
      freezing = false;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
