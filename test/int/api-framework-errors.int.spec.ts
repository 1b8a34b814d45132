import { once } from 'node:events';
import { Agent, get as httpGet, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { success } from '../../platform/http/envelope.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { rawHttp, type RawResponse } from '../support/raw-http.js';

/**
 * Errors the HTTP framework produces before (or instead of) a handler: each is the reference's
 * envelope with a stable code, JSON, never Fastify's {statusCode, error, message} shape.
 */
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const ONE_MIB = 1024 * 1024;

let t: TestRuntime & { app: FastifyInstance };
let port: number;
beforeAll(async () => {
  t = await createTestApp({ eventLog: 'sql', env: { ADMIN_TOKEN, REDIS_URL: '' } });
  // Handling is app-wide: a route added later (as future POST routes will be) gets it too.
  t.app.post('/test-only/echo', async (request) => success({ body: request.body as object }));
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => t?.close());

/** Everything the server sends on one connection for `bytes` (written at once, then optionally the writing side closed), until it closes it. */
function rawConversation(serverPort: number, bytes: string, { endWriting = false } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(serverPort, '127.0.0.1', () => (endWriting ? socket.end(bytes) : socket.write(bytes)));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

/** The one response in `text` (rawConversation's), as rawHttp gives it. */
function parseRaw(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) };
}

/** The envelope of `code` and nothing else: no stack, no Fastify fields. */
function expectEnvelope(response: { headers: Record<string, unknown>; body: string }, code: string, mentions: RegExp) {
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(JSON.parse(response.body)).toEqual({ code, message: expect.stringMatching(mentions), data: {}, extra: {} });
}

const BODY_ROUTES = [
  { url: '/admin/commands/catalog-entry:record', headers: admin },
  { url: '/test-only/echo', headers: {} },
];

describe.each(BODY_ROUTES)('request bodies on POST $url', ({ url, headers }) => {
  const post = (contentType: string | undefined, payload: string, extra: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { ...headers, ...(contentType ? { 'content-type': contentType } : {}), ...extra }, payload });

  it('413 PAYLOAD_TOO_LARGE over the body limit', async () => {
    const response = await post('application/json', `"${'x'.repeat(ONE_MIB)}"`);
    expect(response.statusCode).toBe(413);
    expectEnvelope(response, 'PAYLOAD_TOO_LARGE', /larger than the 1048576 bytes accepted/);
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a body that is not sent as JSON', async () => {
    const xml = await post('application/xml', '<entry/>');
    expect(xml.statusCode).toBe(415);
    expectEnvelope(xml, 'UNSUPPORTED_MEDIA_TYPE', /"application\/xml" is not accepted.*application\/json/);
    const untyped = await post(undefined, '{}');
    expect(untyped.statusCode).toBe(415);
    expectEnvelope(untyped, 'UNSUPPORTED_MEDIA_TYPE', /without Content-Type/);
  });

  it('400 BAD_REQUEST for JSON that does not parse, an empty JSON body, or a wrong Content-Length', async () => {
    for (const [payload, extra, mentions] of [
      ['{"entry_id": ', {}, /not valid JSON/],
      ['', {}, /empty/],
      ['{"a":1}', { 'content-length': '3' }, /Content-Length/],
    ] as const) {
      const response = await post('application/json', payload, extra);
      expect(response.statusCode, payload).toBe(400);
      expectEnvelope(response, 'BAD_REQUEST', mentions);
    }
  });

  it('refuses a body it would read other than it was sent: not UTF-8, another charset, a content coding', async () => {
    const notUtf8 = await post('application/json', Buffer.from('{"name":"Bad\xff\xfeName"}', 'latin1') as unknown as string);
    expect(notUtf8.statusCode).toBe(400);
    expectEnvelope(notUtf8, 'BAD_REQUEST', /not UTF-8/);
    const latin1 = await post('application/json; charset=latin1', '{}');
    expect(latin1.statusCode).toBe(415);
    expectEnvelope(latin1, 'UNSUPPORTED_MEDIA_TYPE', /charset latin1 is not accepted/);
    expect((await post('application/json; charset=US-ASCII', '{"__proto__": {}}')).json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: '__proto__' } });
    const gzip = await post('application/json', '{}', { 'content-encoding': 'gzip' });
    expect(gzip.statusCode).toBe(415);
    expectEnvelope(gzip, 'UNSUPPORTED_MEDIA_TYPE', /Content-Encoding gzip is not accepted/);
    // A BOM before the JSON is dropped (RFC 8259 lets a parser ignore it), as the postback route does.
    const bom = await post('application/json; charset=UTF-8', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"__proto__": {}}')]) as unknown as string);
    expect(bom.json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: '__proto__' } });
  });

  it('400 BAD_REQUEST naming a key that would reach a prototype, at any depth', async () => {
    for (const [payload, field] of [
      ['{"__proto__": {"admin": true}}', '__proto__'],
      // Spelled with an escape, the key is the same once parsed.
      ['{"\\u005f_proto__": {"admin": true}}', '__proto__'],
      ['{"a": {"constr\\u0075ctor": {"prototype": {}}}}', 'a.constructor'],
      ['{"a": [{"constructor": {"prototype": {"x": 1}}}]}', 'a[0].constructor'],
      ['{"context": {"categories": ["x", {"__proto__": 1}]}}', 'context.categories[1].__proto__'],
      ['{"tags": {"12": {"__proto__": {}}}}', 'tags["12"].__proto__'],
    ] as const) {
      const response = await post('application/json', payload);
      expect(response.statusCode, payload).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'BAD_REQUEST', message: `${field}: is not a field of any body (it would reach an object's prototype)`, data: {}, extra: { field } });
    }
    // As deep as JSON.parse goes: the search for the key is no recursion to overflow.
    const deep = await post('application/json', `${'['.repeat(100_000)}{"constructor": {"prototype": 1}}${']'.repeat(100_000)}`);
    expect(deep.json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: `…${`${'[0]'.repeat(100_000)}.constructor`.slice(-200)}` } });
    // A key merely named like them is data, not a threat.
    expect((await post('application/json', '{"constructor": "x", "entry_id": "a"}')).statusCode).not.toBe(500);
  });

  it('400 BAD_REQUEST naming a key an object of the body gives twice (JSON.parse would keep the last one without a word), however it is spelled, at any depth', async () => {
    for (const [payload, field] of [
      ['{"entry_id": "a", "entry_id": "b"}', 'entry_id'],
      ['{"entry_id": "a", "tags": {"y": 1}, "\\u0065ntry_id": "b"}', 'entry_id'],
      // In any object of the body, named where it is (the first in the text).
      ['{"entry_id": "a", "tags": {"x": 1, "x": 2}, "\\u0065ntry_id": "b"}', 'tags.x'],
      ['{"context": {"intent": "a", "intent": "b"}}', 'context.intent'],
      ['[{"a": 1}, {"a": 1, "a": 2}]', '[1].a'],
    ] as const) {
      const response = await post('application/json', payload);
      expect(response.statusCode, payload).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'BAD_REQUEST', message: `${field}: is given twice; send each field once`, data: {}, extra: { field } });
    }
    // Deep down, the place is shown by its end.
    const deep = await post('application/json', `${'{"a":'.repeat(1_000)}{"x": 1, "x": 2}${'}'.repeat(1_000)}`);
    expect(deep.json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: `…${`${'a.'.repeat(1_000)}x`.slice(-200)}` } });
    // The same key in different objects is no repeat.
    expect((await post('application/json', '{"entry_id": "a", "tags": [{"entry_id": 1}, {"entry_id": 2}]}')).body).not.toMatch(/given twice/);
  });
});

describe('routes and methods', () => {
  it('404 NOT_FOUND for a path no route has', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/nothing-here' });
    expect(response.statusCode).toBe(404);
    expectEnvelope(response, 'NOT_FOUND', /^no route for POST \/v1\/nothing-here$/);
  });

  it('405 (code "405") naming the allowed methods when the path has routes under other methods', async () => {
    for (const [method, url, allow] of [
      ['POST', '/v1/locations/search?q=x', 'GET, HEAD'],
      ['DELETE', '/v1/locations/2840', 'GET, HEAD'],
      ['GET', '/test-only/echo', 'POST'],
    ] as const) {
      const response = await t.app.inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(405);
      expect(response.headers.allow).toBe(allow);
      expectEnvelope(response, '405', new RegExp(`use ${allow}`));
    }
  });

  it('answers CONNECT like any method no route takes, then closes the connection (Node alone would close it silently)', async () => {
    const instances = await rawHttp(port, 'CONNECT /v1/offers/instances HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(instances.status).toBe(405);
    expect(instances.headers.allow).toBe('POST');
    expect(instances.headers.connection).toBe('close');
    expectEnvelope(instances, '405', /use POST/);
    const nowhere = await rawHttp(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(nowhere.status).toBe(404);
    expectEnvelope(nowhere, 'NOT_FOUND', /no route for CONNECT/);
    const postback = await rawHttp(port, `CONNECT /v1/postback/${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)} HTTP/1.1\r\nHost: x\r\nSVC-Protocol-Version: 1.0\r\n\r\n`);
    expect(postback.status).toBe(405);
    expect(postback.headers.allow).toBe('GET, POST');
    expect(JSON.parse(postback.body)).toMatchObject({ code: '405', message: 'method_not_allowed', data: {}, extra: { reason: 'method_not_allowed', event_logged: false } });
  });

  it('closes a CONNECT connection once answered, also while the client keeps its side open (each held a descriptor until the client closed)', async () => {
    const serverSide = new Promise<Socket>((resolve) => t.app.server.once('connect', (_request, socket: Socket) => resolve(socket)));
    // allowHalfOpen: the client does not end its side when the server ends its own, as a
    // client that means to hold the connection would not.
    const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => client.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
    client.on('error', () => {});
    let received = '';
    client.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const socket = await serverSide;
    await Promise.all([once(socket, 'close'), once(client, 'end')]);
    expect(socket.destroyed).toBe(true);
    expect(received).toMatch(/^HTTP\/1\.1 404 /);
    client.destroy();
  });

  it('survives a client resetting a CONNECT connection (the reset was an unhandled error event that ended the process)', async () => {
    const client = connect({ port, host: '127.0.0.1' }, () => client.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
    client.on('error', () => {});
    // Reset before the app's listener answers: the server's socket then reads or writes into a reset connection.
    const serverSide = new Promise<Socket>((resolve) =>
      t.app.server.prependOnceListener('connect', (_request, socket: Socket) => {
        client.resetAndDestroy();
        resolve(socket);
      }),
    );
    const socket = await serverSide;
    // Not events.once: it rejects on the 'error' event this test causes.
    if (!socket.destroyed) await new Promise((resolve) => socket.once('close', resolve));
    expect(socket.destroyed).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('answers a request that asks to upgrade the protocol, then closes the connection (Node dropped the requests sent after it, and the client waited for the keep-alive timeout)', async () => {
    const upgrade = (protocol: string) => `GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: ${protocol}\r\n\r\n`;
    for (const protocol of ['websocket', 'h2c']) {
      expect((await rawHttp(port, upgrade(protocol))).headers.connection, protocol).toBe('close');
      const answers = (await rawConversation(port, `${upgrade(protocol)}GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`)).split(/(?=HTTP\/1\.1 )/);
      expect(answers, protocol).toHaveLength(1);
      const answer = parseRaw(answers[0]!);
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe('close');
    }
    // A body sent with the upgrade (curl --http2 on a POST) is read and answered as usual.
    const post = await rawHttp(port, 'POST /test-only/echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}');
    expect(post.status).toBe(200);
    expect(JSON.parse(post.body)).toMatchObject({ data: { body: { a: 1 } } });
    expect(post.headers.connection).toBe('close');
  });

  it('answers 404 and 405 before reading the body: a body that would be refused does not change them', async () => {
    for (const [url, status, code] of [['/v1/nothing-here', 404, 'NOT_FOUND'], ['/v1/locations/2840', 405, '405']] as const) {
      for (const [contentType, payload] of [['application/json', ''], ['application/json', '{"a":'], ['application/xml', '<a/>'], ['application/json', `"${'x'.repeat(ONE_MIB)}"`]]) {
        const response = await t.app.inject({ method: 'PUT', url, headers: { 'content-type': contentType! }, payload });
        expect(response.statusCode, `${url} ${contentType} ${payload!.slice(0, 10)}`).toBe(status);
        expectEnvelope(response, code, /./);
      }
    }
  });
});

describe('what a request says about a body', () => {
  it('a JSON Content-Type naming charset twice is refused: which one the client meant is not ours to guess', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/test-only/echo', headers: { 'content-type': 'application/json; charset=utf-8; charset=latin1' }, payload: '{}' });
    expect(response.statusCode).toBe(415);
    expectEnvelope(response, 'UNSUPPORTED_MEDIA_TYPE', /charset utf-8 and latin1 is not accepted/);
  });

  it('a body sent with GET is not read, so its Content-Encoding refuses nothing', async () => {
    const response = await rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx');
    expect(response.status).toBe(200);
  });
});

describe('static files of the API description (/docs/static)', () => {
  it('keeps the meaning of a refused file request: 416 with the file\'s length, 412, and 404 for a path leaving the folder', async () => {
    const file = await t.app.inject({ url: '/docs/static/index.css' });
    expect(file.statusCode).toBe(200);
    const length = Buffer.byteLength(file.body);
    const range = await t.app.inject({ url: '/docs/static/index.css', headers: { range: 'bytes=999999999-' } });
    expect(range.statusCode).toBe(416);
    expect(range.headers['content-range']).toBe(`bytes */${length}`);
    expectEnvelope(range, 'RANGE_NOT_SATISFIABLE', /range lies outside the file/);
    const precondition = await t.app.inject({ url: '/docs/static/index.css', headers: { 'if-match': '"nope"' } });
    expect(precondition.statusCode).toBe(412);
    expectEnvelope(precondition, 'PRECONDITION_FAILED', /preconditions/);
    for (const path of ['/docs/static/../../package.json', '/docs/static/%00']) {
      const outside = await rawHttp(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(outside.status, path).toBe(404);
      expectEnvelope(outside, 'NOT_FOUND', /nothing at/);
    }
  });
});

describe('requests the HTTP parser refuses, over a real socket', () => {
  it('431 REQUEST_HEADER_FIELDS_TOO_LARGE for headers past the server limit', async () => {
    const response = await rawHttp(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(response.status).toBe(431);
    expect(response.headers.connection).toBe('close');
    expectEnvelope(response, 'REQUEST_HEADER_FIELDS_TOO_LARGE', /larger than the 16384 bytes accepted/);
  });

  it('400 BAD_REQUEST for malformed requests, naming what is wrong in its own words (not the parser\'s)', async () => {
    for (const [request, mentions] of [
      [`POST /test-only/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, /Content-Length or chunked Transfer-Encoding/],
      [`POST /test-only/echo HTTP/1.1\r\nHost: x\r\nContent-Length: two\r\n\r\n{}`, /Content-Length/],
      [`GET /healthz HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n`, /a header line is malformed/],
      [`GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n`, /Host header/],
      [`GET /v1/locations/search?q=a b HTTP/1.1\r\nHost: x\r\n\r\n`, /the request line is malformed/],
      [`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`, /HTTP\/1\.1 only/],
      // The start of a TLS ClientHello, as an https:// URL on this port sends it.
      [`\x16\x03\x01\x00\x2f\x01\x00\x00\x2b\x03\x03${'\x00'.repeat(43)}`, /no TLS on this port/],
      // RFC 9112 3.2: one Host, whose value is a host and an optional port.
      [`GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n`, /Host is given more than once/],
      [`GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n`, /Host header is not a host name/],
      [`GET /healthz HTTP/1.1\r\nHost: user@example.test\r\n\r\n`, /Host header is not a host name/],
      [`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:99999999\r\n\r\n`, /Host header is not a host name/],
      [`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:65536\r\n\r\n`, /Host header is not a host name/],
      // No version: Node would serve it as HTTP/0.9.
      [`GET /healthz\r\n\r\n`, /the request line has no HTTP version/],
      // A fragment is the client's own: one in the target would be read as part of the path or a parameter.
      [`GET /v1/locations/2250#x HTTP/1.1\r\nHost: x\r\n\r\n`, /fragment/],
      [`GET /v1/locations/search#?q=paris HTTP/1.1\r\nHost: x\r\n\r\n`, /fragment/],
    ] as const) {
      const response = await rawHttp(port, request);
      expect(response.status, request.split('\r\n')[0]).toBe(400);
      expectEnvelope(response, 'BAD_REQUEST', mentions);
      expect(response.body).not.toMatch(/Invalid|Expected|Pause on|HPE_/);
    }
    for (const host of ['example.test:8080', '127.0.0.1', '[::1]:80', '', 'example.test:65535', 'example.test:']) {
      expect((await rawHttp(port, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).status, host).toBe(200);
    }
  });

  it('405 (or 404 on a path without routes) for a method the parser does not know, as for any method no route takes', async () => {
    for (const method of ['BREW', 'get', 'Post']) {
      const instances = await rawHttp(port, `${method} /v1/offers/instances HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(instances.status, method).toBe(405);
      expect(instances.headers.allow).toBe('POST');
      expectEnvelope(instances, '405', /use POST/);
    }
    const nowhere = await rawHttp(port, 'BREW /v1/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(nowhere.status).toBe(404);
    expectEnvelope(nowhere, 'NOT_FOUND', /no route for BREW \/v1\/nothing-here/);
  });

  it('on a postback path, in the postback envelope: invalid_payload (or payload_too_large), SVC-Protocol-Version on the current contract', async () => {
    const path = `/v1/postback/${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}`;
    for (const [request, status, reason, protocol] of [
      [`POST ${path} HTTP/1.1\r\nHost: x\r\nSVC-Protocol-Version: 1.0\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400, 'invalid_payload', '1.0'],
      [`GET ${path}?order_id=1 HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n`, 400, 'invalid_payload', undefined],
      // A malformed request line whose target still names the route.
      [`POST ${path} x HTTP/1.1\r\nHost: x\r\nSVC-Protocol-Version: 1.0\r\nContent-Length: 2\r\n\r\n{}`, 400, 'invalid_payload', '1.0'],
      [`POST ${path} HTTP/1.1\r\nHost: x\r\nSVC-Protocol-Version: 1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2;${'e'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`, 413, 'payload_too_large', '1.0'],
      // The current contract's answer carries the header even when the request left it out (the route would refuse that too, with it);
      // only GET and a form POST without it are the compatibility routes.
      [`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400, 'invalid_payload', '1.0'],
      [`PUT ${path} HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n`, 400, 'invalid_payload', '1.0'],
      [`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nBad Name: y\r\nContent-Length: 2\r\n\r\na=`, 400, 'invalid_payload', undefined],
    ] as const) {
      const response = await rawHttp(port, request);
      expect(response.status, request.split('\r\n')[0]).toBe(status);
      expect(response.headers['svc-protocol-version']).toBe(protocol);
      expect(response.headers['svc-error-detail']).toEqual(expect.any(String));
      expect(JSON.parse(response.body)).toEqual({
        code: reason.toUpperCase(),
        message: reason,
        data: {},
        extra: { result: 'rejected', reason, correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/), retryable: false, event_logged: false },
      });
      // Kept for the operator page like the routes' own refusals: found by its correlation id, not in the ledger.
      const { correlation_id: correlationId } = JSON.parse(response.body).extra;
      const page = await t.app.inject({ url: `/admin/postbacks?correlation_id=${correlationId}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(correlationId);
      expect(page.body).toContain('Not in the ledger');
      expect(page.body).toContain(reason);
    }
  });

  it('on a postback path, a method the parser does not know is refused as the routes refuse any method they do not take: 405 method_not_allowed, or 404 partner_not_found where no partner is named', async () => {
    const partnerPath = `/v1/postback/${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}`;
    for (const [method, path, status, reason] of [
      ['BREW', partnerPath, 405, 'method_not_allowed'],
      ['get', partnerPath, 405, 'method_not_allowed'],
      ['BREW', `${partnerPath}/more`, 404, 'partner_not_found'],
      // The prefix itself is the routes' too (a POST there is their 404), so is a malformed head sent to it.
      ['BREW', '/v1/postback', 404, 'partner_not_found'],
    ] as const) {
      const response = await rawHttp(port, `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nSVC-Protocol-Version: 1.0\r\nContent-Length: 2\r\n\r\n{}`);
      expect(response.status, `${method} ${path}`).toBe(status);
      expect(response.headers.allow).toBe(status === 405 ? 'GET, POST' : undefined);
      expect(response.headers['svc-protocol-version']).toBe('1.0');
      expect(JSON.parse(response.body)).toEqual({
        code: status === 405 ? '405' : 'PARTNER_NOT_FOUND',
        message: reason,
        data: {},
        extra: { result: 'rejected', reason, correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/), retryable: false, event_logged: false },
      });
    }
    const malformed = await rawHttp(port, 'POST /v1/postback HTTP/1.1\r\nHost: x\r\nBad Name: y\r\nContent-Type: application/json\r\nSVC-Protocol-Version: 1.0\r\nContent-Length: 2\r\n\r\n{}');
    expect(malformed.status).toBe(400);
    expect(malformed.headers['svc-protocol-version']).toBe('1.0');
    expect(JSON.parse(malformed.body)).toMatchObject({ code: 'INVALID_PAYLOAD', extra: { reason: 'invalid_payload', event_logged: false } });
  });

  it('refuses two Content-Types (or Authorizations) and transfer codings other than chunked, on any route, appending nothing', async () => {
    const before = await t.runtime.eventLog.endOffsets('catalog');
    const body = '{"entry_id":"framing","name":"n","amount":"1.50","currency":"USD"}';
    const route = `POST /admin/commands/catalog-entry:record HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nConnection: close\r\n`;
    const twice = await rawHttp(port, `${route}Content-Type: application/json\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(twice.status).toBe(400);
    expectEnvelope(twice, 'BAD_REQUEST', /Content-Type is given more than once/);
    // Content-Type is about the body: a caller without a valid key learns nothing about the body rules.
    const instances = await rawHttp(port, 'POST /v1/offers/instances HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    expect(instances.status).toBe(401);
    expect(JSON.parse(instances.body)).toMatchObject({ code: 'UNAUTHORIZED' });
    const twoCredentials = await rawHttp(port, `${route}Authorization: Bearer another\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(twoCredentials.status).toBe(400);
    expectEnvelope(twoCredentials, 'BAD_REQUEST', /Authorization is given more than once/);
    // On the instance route too, said as what it is: not as a problem of the id list its other 400s state the rule of.
    const twoKeys = await rawHttp(port, 'POST /v1/offers/instances HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    expect(twoKeys.status).toBe(400);
    expectEnvelope(twoKeys, 'BAD_REQUEST', /^Authorization is given more than once; send it once$/);
    const chunk = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const gzipped = await rawHttp(port, `${route}Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${chunk}`);
    expect(gzipped.status).toBe(400);
    expectEnvelope(gzipped, 'BAD_REQUEST', /Transfer-Encoding gzip, chunked is not supported/);
    // RFC 9112 6.1: HTTP/1.0 has no transfer codings; a server treats such framing as faulty and
    // closes the connection (a proxy in front may have framed the body otherwise).
    const http10 = (await rawConversation(port, `${route.replace('HTTP/1.1', 'HTTP/1.0').replace('Connection: close', 'Connection: keep-alive')}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk}GET /healthz HTTP/1.0\r\n\r\n`)).split(/(?=HTTP\/1\.1 )/);
    expect(http10).toHaveLength(1);
    const chunkedHttp10 = parseRaw(http10[0]!);
    expect(chunkedHttp10.status).toBe(400);
    expect(chunkedHttp10.headers.connection).toBe('close');
    expectEnvelope(chunkedHttp10, 'BAD_REQUEST', /Transfer-Encoding is not HTTP\/1\.0/);
    expect(await t.runtime.eventLog.endOffsets('catalog')).toEqual(before);
  });

  it('answers a request taken before bytes it refuses on the same connection first, then refuses them (pipelined)', async () => {
    const taken = 'POST /test-only/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}';
    const answers = await rawConversation(port, `${taken}GARBAGE\r\n\r\n`);
    const [first, second] = answers.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain(JSON.stringify({ code: 'SUCCESS', message: '', data: { body: { a: 1 } }, extra: {} }));
    expect(second).toMatch(/^HTTP\/1\.1 400 /);
    expect(second).toContain('"code":"BAD_REQUEST"');
    // The refused one cut short after a request taken: answered after it, as the second answer.
    const cutShort = 'POST /test-only/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"a"';
    const inOrder = (await rawConversation(port, `${taken}${cutShort}`, { endWriting: true })).split(/(?=HTTP\/1\.1 )/);
    expect(inOrder.map((answer) => answer.slice(0, 12))).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
    expect(inOrder[1]).toContain('the request body is not framed as its Content-Length');
  });

  it('closes the connection without a second answer when the rest of a body is refused after its request was answered (a GET, whose body is not read)', async () => {
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n'));
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        const first = received === '';
        received += chunk.toString('latin1');
        // The answer came before the body ended: now the body breaks.
        if (first) socket.write('zz\r\nnot a chunk\r\n');
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
    });
    const [only, ...more] = answers.split(/(?=HTTP\/1\.1 )/);
    expect(only).toMatch(/^HTTP\/1\.1 200 /);
    expect(more).toEqual([]);
  });

  it('answers a postback whose body is cut short, or whose Expect cannot be met, in the postback envelope with its header', async () => {
    const path = `/v1/postback/${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}`;
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nSVC-Protocol-Version: 1.0\r\nContent-Type: application/json\r\n`;
    const cutShort = parseRaw(await rawConversation(port, `${head}Content-Length: 40\r\n\r\n{"event_name":"purchase"`, { endWriting: true }));
    const unmet = await rawHttp(port, `${head}Expect: something-else\r\nContent-Length: 2\r\n\r\n{}`);
    const longLine = await rawHttp(port, `POST ${path}${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nSVC-Protocol-Version: 1.0\r\n\r\n`);
    for (const [response, status, reason] of [[cutShort, 400, 'invalid_payload'], [unmet, 417, 'expectation_failed'], [longLine, 400, 'invalid_payload']] as const) {
      expect(response.status, reason).toBe(status);
      expect(response.headers['svc-protocol-version'], reason).toBe('1.0');
      expect(JSON.parse(response.body)).toEqual({
        code: reason.toUpperCase(),
        message: reason,
        data: {},
        extra: { result: 'rejected', reason, correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/), retryable: false, event_logged: false },
      });
    }
    const elsewhere = await rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n');
    expect(elsewhere.status).toBe(417);
    expectEnvelope(elsewhere, 'EXPECTATION_FAILED', /Expect: something-else cannot be met/);
  });

  it('413 PAYLOAD_TOO_LARGE for a chunked body past the limit, then closes the connection', async () => {
    const body = `"${'x'.repeat(ONE_MIB)}"`;
    const response = await rawHttp(
      port,
      `POST /test-only/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe('close');
    expectEnvelope(response, 'PAYLOAD_TOO_LARGE', /1048576/);
  });

  it('still answers well-formed requests on the same server', async () => {
    const response = await rawHttp(port, `POST /test-only/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}`);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ code: 'SUCCESS', message: '', data: { body: { a: 1 } }, extra: {} });
  });
});

describe('a client that resets or half-closes its connection', () => {
  it('is not a failure of ours when it resets before a rate-limited route runs (its address was read from the closed socket: a TypeError, a 500 in the log and the metrics)', async () => {
    const client = connect(port, '127.0.0.1', () => client.write('GET /v1/locations/search?q=paris HTTP/1.1\r\nHost: x\r\n\r\n'));
    client.on('error', () => {});
    // The server's side closed before the route's hooks run, as a reset read between them closes it.
    const answered = new Promise<ServerResponse>((resolve) =>
      t.app.server.prependOnceListener('request', (request: IncomingMessage, response: ServerResponse) => {
        request.socket.destroy();
        resolve(response);
      }),
    );
    const response = await answered;
    // The hooks up to the rate limit's key run as Node emits 'request', before the close is reported.
    await once(response, 'close');
    expect(response.statusCode).not.toBe(500);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('is closed at once when it reset the connection before the server accepted it: it has no address left, and nobody to answer', async () => {
    // A socket without a peer, as one reset in the accept queue is handed over.
    const gone = new Socket();
    t.app.server.emit('connection', gone);
    expect(gone.destroyed).toBe(true);
  });

  it('gets its answers when it ends its side right after its requests, then the connection closes (Node closed it at once: an answer still being worked out was never sent)', async () => {
    // /readyz asks the backends: its answer comes after the client's end has been read.
    const one = await rawConversation(port, 'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n', { endWriting: true });
    expect(parseRaw(one).status).toBe(200);
    expect(JSON.parse(parseRaw(one).body)).toMatchObject({ code: 'SUCCESS' });
    const pipelined = (await rawConversation(port, 'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', { endWriting: true })).split(/(?=HTTP\/1\.1 )/);
    expect(pipelined.map((answer) => parseRaw(answer).status)).toEqual([200, 200]);
  });
});

describe('a client that stalls mid-request', () => {
  it('is answered 408 REQUEST_TIMEOUT once REQUEST_TIMEOUT_MS passes, and its connection closed (a body shorter than Content-Length held it open for good)', async () => {
    const stalled = await createTestApp({ eventLog: 'sql', env: { REDIS_URL: '', REQUEST_TIMEOUT_MS: '1000' } });
    try {
      await stalled.app.listen({ port: 0, host: '127.0.0.1' });
      const stalledPort = (stalled.app.server.address() as { port: number }).port;
      for (const partial of [
        'POST /v1/offers/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{}',
        'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Half: ',
      ]) {
        const response = await rawHttp(stalledPort, partial);
        expect(response.status, partial).toBe(408);
        expect(response.headers.connection).toBe('close');
        expectEnvelope(response, 'REQUEST_TIMEOUT', /did not arrive in time/);
      }
      // A postback whose headers arrived: its own envelope (a 4xx: not retryable as sent), with SVC-Protocol-Version.
      const path = `/v1/postback/${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}`;
      const postback = await rawHttp(stalledPort, `POST ${path} HTTP/1.1\r\nHost: x\r\nSVC-Protocol-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"event_name":`);
      expect(postback.status).toBe(408);
      expect(postback.headers['svc-protocol-version']).toBe('1.0');
      expect(JSON.parse(postback.body)).toMatchObject({ code: 'REQUEST_TIMEOUT', message: 'request_timeout', extra: { reason: 'request_timeout', retryable: false, event_logged: false } });
    } finally {
      await stalled.close();
    }
  });
});

describe('a server shutting down', () => {
  it('answers requests that still arrive with 503 SHUTTING_DOWN and closes their connection', async () => {
    const closing = await createTestApp({ eventLog: 'sql', env: { REDIS_URL: '' } });
    let during: RawResponse | undefined;
    let readiness: RawResponse | undefined;
    let postback: RawResponse | undefined;
    // Runs after the app's own preClose hooks, while the server still accepts requests.
    closing.app.addHook('preClose', async () => {
      during = await rawHttp(closingPort, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      // Routes whose own 503 answer carries more than the envelope.
      readiness = await rawHttp(closingPort, 'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
      const body = '{"event_name":"purchase"}';
      postback = await rawHttp(
        closingPort,
        `POST /v1/postback/0190a000-0000-7000-8000-000000000000 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nSVC-Protocol-Version: 1.0\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
    });
    await closing.app.listen({ port: 0, host: '127.0.0.1' });
    const closingPort = (closing.app.server.address() as { port: number }).port;
    expect((await rawHttp(closingPort, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status).toBe(200);

    await closing.close();
    expect(during?.status).toBe(503);
    expect(during?.headers.connection).toBe('close');
    expectEnvelope(during!, 'SHUTTING_DOWN', /retry/);
    expect(readiness?.status).toBe(503);
    expectEnvelope(readiness!, 'SHUTTING_DOWN', /retry/);
    // The postback route answers in its own envelope: intake unavailable, nothing logged, retry.
    expect(postback?.status).toBe(503);
    expect(postback?.headers['svc-protocol-version']).toBe('1.0');
    expect(postback?.headers['retry-after']).toBe('1');
    expect(JSON.parse(postback!.body)).toMatchObject({
      code: 'POSTBACK_V10_UNAVAILABLE',
      data: {},
      extra: { result: 'unavailable', reason: 'postback_v10_unavailable', retryable: true, event_logged: false },
    });
  });
  it('closes without waiting for requests that have not arrived: a body still coming is answered 503 (in its route\'s shape), a connection with nothing under way is closed (each held the close for good: Node stops checking REQUEST_TIMEOUT_MS once it closes)', async () => {
    const closing = await createTestApp({ eventLog: 'sql', env: { REDIS_URL: '' } });
    await closing.app.listen({ port: 0, host: '127.0.0.1' });
    const closingPort = (closing.app.server.address() as { port: number }).port;
    const headers = (path: string, length: number, extra = '') => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}Content-Length: ${length}\r\n\r\n`;
    const conversations: Record<string, Promise<string>> = {};
    const taken = new Set<string>();
    const allTaken = new Promise<void>((resolve) =>
      closing.app.server.on('request', (request: IncomingMessage) => {
        taken.add(request.url!);
        if (taken.size === 2) resolve();
      }),
    );
    // Headers read, body still to come: on a route of the envelope, and on the postback route.
    conversations.body = rawConversation(closingPort, `${headers('/v1/offers/query', 20)}{"a":`);
    conversations.postback = rawConversation(closingPort, `${headers('/v1/postback/0190a000-0000-7000-8000-000000000000', 30, 'SVC-Protocol-Version: 1.0\r\n')}{"event_name":`);
    await allTaken;
    // Connected and silent, and partway through a head: nothing of theirs was taken.
    const silent = connect(closingPort, '127.0.0.1');
    const partial = connect(closingPort, '127.0.0.1', () => partial.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
    for (const client of [silent, partial]) client.on('error', () => {});
    await Promise.all([once(silent, 'connect'), once(partial, 'connect')]);
    // Not events.once: it rejects on the 'error' event a closed connection may give.
    const [silentClosed, partialClosed] = [silent, partial].map((client) => new Promise((resolve) => client.once('close', resolve)));

    await closing.close();
    const body = parseRaw(await conversations.body);
    expect(body.status).toBe(503);
    expect(body.headers.connection).toBe('close');
    expectEnvelope(body, 'SHUTTING_DOWN', /retry/);
    const postback = parseRaw(await conversations.postback);
    expect(postback.status).toBe(503);
    expect(postback.headers['svc-protocol-version']).toBe('1.0');
    // Every 500 and 503 of the postback route says when to retry first, however it is written.
    expect(postback.headers['retry-after']).toBe('1');
    expect(JSON.parse(postback.body)).toMatchObject({ code: 'POSTBACK_V10_UNAVAILABLE', extra: { reason: 'postback_v10_unavailable', retryable: true, event_logged: false } });
    await Promise.all([silentClosed, partialClosed]);
  });

  it('drains before it closes: a kept-alive connection gets its answer with Connection: close, readiness says it is going, and no new connection is taken', async () => {
    const draining = await createTestApp({ eventLog: 'sql', env: { REDIS_URL: '' } });
    try {
      await draining.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = draining.app.server.address() as { port: number };
      // One kept-alive connection, as a client pool holds it.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const get = (path: string) => new Promise<{ status: number; connection: string | undefined; socket: unknown }>((resolve, reject) => {
        const request = httpGet({ host: '127.0.0.1', port, path, agent }, (response) => {
          response.resume();
          response.on('end', () => resolve({ status: response.statusCode!, connection: response.headers.connection, socket: request.socket }));
        });
        request.on('error', reject);
      });
      const before = await get('/healthz');
      expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });
      draining.app.startDraining();
      const during = await get('/healthz');
      expect(during.socket).toBe(before.socket);
      expect(during).toMatchObject({ status: 200, connection: 'close' });
      // Readiness says it is going; a new connection is refused before its client sends anything.
      expect((await draining.app.inject('/readyz')).statusCode).toBe(503);
      await expect(get('/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      agent.destroy();
    } finally {
      await draining.close();
    }
  });
});

describe('what a browser may make of an answer', () => {
  it('every answer says nosniff: a 404 quoting the path, a refusal quoting a field, a success, the API description', async () => {
    const answers = await Promise.all([
      t.app.inject({ method: 'GET', url: '/no-such-route/<b>quoted</b>' }),
      t.app.inject({ method: 'POST', url: '/admin/commands/catalog-entry:record', headers: admin, payload: { '<b>field</b>': 1 } }),
      t.app.inject({ method: 'GET', url: '/healthz' }),
      t.app.inject({ method: 'GET', url: '/openapi.json' }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([404, 400, 200, 200]);
    for (const answer of answers) expect(answer.headers['x-content-type-options'], answer.body).toBe('nosniff');
  });

  it('so do the answers no hook writes: an undecodable path (under any prefix), and the refusals written straight to the socket', async () => {
    const postbackPath = '/v1/postback/%zz';
    const raw = await Promise.all([
      rawHttp(port, 'GET /healthz%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      rawHttp(port, `GET ${postbackPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      rawHttp(port, `PUT ${postbackPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`),
      rawHttp(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`),
      rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: telepathy\r\nConnection: close\r\n\r\n'),
      rawHttp(port, 'BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
      rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
    ]);
    expect(raw.map((answer) => answer.status)).toEqual([400, 404, 405, 431, 417, 405, 400]);
    for (const answer of raw) expect(answer.headers['x-content-type-options'], `${answer.status} ${answer.body}`).toBe('nosniff');
  });

  it('a refusal written on the socket has its route\'s shape: the postback envelope for any target byte the parser refuses or an absolute-form target, the link headers, the instance route\'s 400', async () => {
    const partner = '0192f3a0-0000-7000-8000-000000000001';
    const postbacks = await Promise.all(
      ['\t', '\x0b', '\x0c', '\xa0', '\x01'].map((byte) => rawHttp(port, `GET /v1/postback/${partner}?event_name=a${byte} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)),
    );
    for (const answer of postbacks) expect(JSON.parse(answer.body), answer.body).toMatchObject({ code: 'INVALID_PAYLOAD', extra: { reason: 'invalid_payload', event_logged: false } });
    // An undecodable path in absolute form is answered as the same path in origin form.
    const [origin, absolute] = await Promise.all(
      ['/v1/postback/%zz', 'http://x/v1/postback/%zz'].map((target) => rawHttp(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)),
    );
    expect(JSON.parse(origin!.body)).toMatchObject({ extra: { reason: 'partner_not_found' } });
    expect([absolute!.status, JSON.parse(absolute!.body).extra.reason]).toEqual([origin!.status, 'partner_not_found']);

    const links = await Promise.all([
      rawHttp(port, 'Post /l/Ab3dE6gH HTTP/1.1\r\nHost: x\r\n\r\n'),
      rawHttp(port, 'GET /l/Ab3dE6gH HTTP/1.1\r\nHost: x\r\nExpect: telepathy\r\nConnection: close\r\n\r\n'),
    ]);
    expect(links.map((answer) => answer.status)).toEqual([405, 417]);
    for (const answer of links) expect([answer.headers['cache-control'], answer.headers['referrer-policy']], answer.body).toEqual(['no-store', 'no-referrer']);
    expect(links[0]!.headers.allow).toBe('GET, HEAD');

    const extensions = await rawHttp(port, `POST /v1/offers/instances HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2;a=${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`);
    expect(extensions.status, extensions.body).toBe(400);
    expect(JSON.parse(extensions.body)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^offer_instance_ids must contain between 1 and 100 offer instance ids; /) });
  });
});
