import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { repeatedTopLevelKey } from '../text/json-keys.js';
import { badRequest, unsupportedMediaType } from './errors.js';
import { refusedCharset } from './json-media-type.js';

/**
 * JSON bodies for every route. Keys that could reach an object's prototype (`__proto__`, and
 * `constructor` holding `prototype`) are refused like any other unknown field: a 400 naming the
 * key. Fastify's own parser refuses them too, but as "not valid JSON", which names nothing. A key
 * the body's object names twice is a 400 naming it too (the postback route, which reads its own
 * bodies, refuses it the same way).
 */
const mayNamePrototypeKey = (body: string) => body.includes('\\') || body.includes('__proto__') || body.includes('constructor');

/** Refuses bytes that are not UTF-8 (a plain decode would turn them into U+FFFD and store that); drops a leading BOM, as RFC 8259 allows. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

export const jsonBodies = fp(async (app: FastifyInstance) => {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    const charset = refusedCharset(request.headers['content-type']);
    if (charset !== undefined) {
      return done(unsupportedMediaType(`charset ${charset} is not accepted; send the body as UTF-8 JSON`), undefined);
    }
    let body: string;
    try {
      body = utf8.decode(bytes as Buffer);
    } catch {
      return done(badRequest('the request body is not UTF-8 text'), undefined);
    }
    if (body.trim() === '') return done(badRequest('the request body is empty, but Content-Type says application/json'), undefined);
    let forbidden: string | undefined;
    let parsed: unknown;
    try {
      // The checking reviver costs a call per value; a body that neither names such a key nor
      // escapes any character (an escape could spell one) cannot hold one.
      parsed = mayNamePrototypeKey(body)
        ? JSON.parse(body, (key, value: unknown) => {
            const reachesPrototype = key === '__proto__' || (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'));
            if (reachesPrototype) forbidden ??= key;
            return value;
          })
        : JSON.parse(body);
    } catch {
      return done(badRequest('the request body is not valid JSON'), undefined);
    }
    if (forbidden !== undefined) return done(badRequest(`${forbidden}: is not a field of any body (it would reach an object's prototype)`, { field: forbidden }), undefined);
    // JSON.parse keeps a repeated key's last value without a word; which one the sender meant is not ours to guess.
    const repeated = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? repeatedTopLevelKey(body) : undefined;
    if (repeated !== undefined) return done(badRequest(`${repeated}: is given twice; send each field once`, { field: repeated }), undefined);
    done(null, parsed);
  });
});
