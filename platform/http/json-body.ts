import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { fieldPath } from '../text/field-path.js';
import { repeatedKey } from '../text/json-keys.js';
import { badRequest, unsupportedMediaType } from './errors.js';
import { refusedCharset } from './json-media-type.js';

/**
 * JSON bodies for every route. Keys that could reach an object's prototype (`__proto__`, and
 * `constructor` holding `prototype`) are refused like any other unknown field: a 400 naming the
 * key where it is (`context.__proto__`). Fastify's own parser refuses them too, but as "not valid
 * JSON", which names nothing. A key one of the body's objects names twice is a 400 naming it the
 * same way (the postback route, which reads its own bodies, refuses it so too).
 */
const mayNamePrototypeKey = (body: string) => body.includes('\\') || body.includes('__proto__') || body.includes('constructor');

const reachesPrototype = (key: string, value: unknown) =>
  key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'));

/** A place in the parsed body: its key or position, and where its container is (a chain, so no path is copied per level). */
interface Place {
  value: unknown;
  key?: string | number;
  container?: Place;
}

function pathOf(place: Place): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Place | undefined = place; at?.key !== undefined; at = at.container) path.push(at.key);
  return path.reverse();
}

/** Paths this long (an array nested 100,000 deep) are shown by their end. */
const SHOWN_PATH_LENGTH = 200;

/** A 400 naming the key where it is, in the message and in extra.field. */
function refusalAt(path: string, why: string) {
  const field = path.length > SHOWN_PATH_LENGTH ? `…${path.slice(-SHOWN_PATH_LENGTH)}` : path;
  return badRequest(`${field}: ${why}`, { field });
}

/**
 * Where the first such key is (`context.__proto__`), or undefined. JSON.parse keeps `__proto__` as
 * an own key, so the parsed value shows it; walked without recursion, as deep as JSON.parse went.
 */
function prototypeKeyPath(parsed: unknown): string | undefined {
  const pending: Place[] = [{ value: parsed }];
  for (let place = pending.pop(); place !== undefined; place = pending.pop()) {
    const { value } = place;
    if (typeof value !== 'object' || value === null) continue;
    const children: [string | number, unknown][] = Array.isArray(value) ? value.map((child, index) => [index, child]) : Object.entries(value);
    const found = children.find(([key, child]) => typeof key === 'string' && reachesPrototype(key, child));
    if (found) return fieldPath(pathOf({ value: found[1], key: found[0], container: place }));
    // Reversed onto the stack, so the first child is walked first.
    for (const [key, child] of children.reverse()) pending.push({ value: child, key, container: place });
  }
  return undefined;
}

/** Refuses bytes that are not UTF-8 (a plain decode would turn them into U+FFFD and store that); drops a leading BOM, as RFC 8259 allows. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A JSON body as every route reads it, for a route that reads most of its bodies its own way and
 * hands the rest here (the instance route).
 */
export function parseJsonBody(request: FastifyRequest, bytes: Buffer, done: (error: Error | null, body?: unknown) => void): void {
  const charset = refusedCharset(request.headers['content-type']);
  if (charset !== undefined) {
    return done(unsupportedMediaType(`charset ${charset} is not accepted; send the body as UTF-8 JSON`), undefined);
  }
  let body: string;
  try {
    body = utf8.decode(bytes);
  } catch {
    return done(badRequest('the request body is not UTF-8 text'), undefined);
  }
  if (body.trim() === '') return done(badRequest('the request body is empty, but Content-Type says application/json'), undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return done(badRequest('the request body is not valid JSON'), undefined);
  }
  // A body that neither names such a key nor escapes any character (an escape could spell one) cannot hold one.
  const forbidden = mayNamePrototypeKey(body) ? prototypeKeyPath(parsed) : undefined;
  if (forbidden !== undefined) return done(refusalAt(forbidden, "is not a field of any body (it would reach an object's prototype)"), undefined);
  // JSON.parse keeps a repeated key's last value without a word; which one the sender meant is not ours to guess.
  const repeated = typeof parsed === 'object' && parsed !== null ? repeatedKey(body) : undefined;
  if (repeated !== undefined) return done(refusalAt(repeated, 'is given twice; send each field once'), undefined);
  done(null, parsed);
}

export const jsonBodies = fp(async (app: FastifyInstance) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => parseJsonBody(request, bytes as Buffer, done));
});
