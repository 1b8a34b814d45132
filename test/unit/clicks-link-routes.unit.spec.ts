import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { errorHandling } from '../../platform/http/error-handler.js';
import { loadConfig } from '../../platform/config/config.js';
import type { Runtime } from '../../platform/runtime.js';
import { linkRoutePrefix, linkRoutes } from '../../services/api/routes/links/index.js';

describe('the link routes follow LINK_BASE', () => {
  it.each([
    ['http://127.0.0.1:8080/l', '/l'],
    ['https://go.example.test/c/', '/c'],
    ['https://go.example.test/a/b', '/a/b'],
    ['https://go.example.test', ''],
  ])('%s → routes under "%s"', (linkBase, prefix) => {
    expect(linkRoutePrefix(linkBase)).toBe(prefix);
  });

  it('at the root of a link origin they leave the fixed routes alone; a path no link can have is 404 without a lookup', async () => {
    const app = Fastify();
    await app.register(errorHandling);
    app.get('/healthz', async () => 'ok');
    // Paths no link can have are answered before anything is read: the runtime has no backends
    // (its rate limit counts in this process).
    await app.register(linkRoutes, { runtime: { config: loadConfig({}) } as Runtime, prefix: linkRoutePrefix('https://go.example.test/') });
    expect((await app.inject('/healthz')).body).toBe('ok');
    for (const path of ['/st_token', '/abc', '/static/xx', '/Ab3dE6gHx']) {
      const response = await app.inject(path);
      expect(response.statusCode, path).toBe(404);
      expect(response.json()).toEqual({ code: 'NOT_FOUND', message: 'no tracked link at this address', data: {}, extra: {} });
      expect(response.headers['cache-control']).toBe('no-store');
    }
    await app.close();
  });
});
