import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What is done with every answered request (the access log, the request metric); `elapsedMs` from its arrival to its answer. */
export type AnsweredListener = (request: FastifyRequest, reply: FastifyReply, elapsedMs: number) => Promise<void> | void;

const listeners = new WeakMap<FastifyInstance, AnsweredListener[]>();

/**
 * Runs `listener` for every request `app` answers: as its onResponse hook, and for the requests
 * Fastify answers through `frameworkErrors` (a URL the router cannot decode), whose request has no
 * route and so runs no hook: those went unlogged and uncounted. Register on the root instance (or
 * from a plugin wrapped by fastify-plugin, which is given the root).
 */
export function onAnswered(app: FastifyInstance, listener: AnsweredListener): void {
  app.addHook('onResponse', async (request, reply) => listener(request, reply, reply.elapsedTime));
  listeners.set(app, [...(listeners.get(app) ?? []), listener]);
}

/** Call from `frameworkErrors` before answering: the request is then handed to every onAnswered listener of `app` once its answer is sent. */
export function answeringOutsideRoutes(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): void {
  const arrived = performance.now();
  reply.raw.once('finish', () => {
    const elapsedMs = performance.now() - arrived;
    for (const listener of listeners.get(app) ?? []) {
      // As a failing onResponse hook would be: logged, never a failure of the answer already sent.
      Promise.resolve()
        .then(() => listener(request, reply, elapsedMs))
        .catch((error: unknown) => request.log.error({ err: error }, 'a listener of answered requests failed'));
    }
  });
}
