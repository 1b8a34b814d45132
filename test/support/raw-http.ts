import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` byte for byte over a new TCP connection and reads one response. For what
 * `inject()` cannot show: requests Node's HTTP parser sees (and refuses) before Fastify does.
 * Send `Connection: close` on requests the server would otherwise keep alive.
 */
export function rawHttp(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    let settled = false;
    // On a complete response, or when the connection ends or fails: the server may reset a
    // connection it refused once it has answered, and the answer counts.
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      const response = parse(Buffer.concat(chunks));
      socket.destroy();
      if (response) resolve(response);
      else reject(error ?? new Error(`no complete response: ${JSON.stringify(Buffer.concat(chunks).toString())}`));
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (parse(Buffer.concat(chunks))) finish();
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish());
  });
}

/** One response when complete (its Content-Length bytes read), else undefined. */
function parse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = bytes.subarray(end + 4);
  if (body.length < length) return undefined;
  return { status: Number(statusLine!.split(' ')[1]), headers, body: body.subarray(0, length).toString('utf8') };
}
