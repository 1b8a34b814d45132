import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../../../platform/http/errors.js';
import { fromFramework } from '../../../../platform/http/framework-errors.js';
import type { Runtime } from '../../../../platform/runtime.js';
import type { PostbackRefusals } from '../../postback-refusals.js';
import { sendErrorPage } from './error-page.js';
import { loginRoutes, returnPath, sendLogin, sendRefusedSignIn } from './login.js';
import { judgeToken } from '../../../../platform/http/token-throttle.js';
import type { AdminTokenThrottle } from './token-throttle.js';
import { postbackPages } from './postbacks/index.js';
import type { AdminSessions } from './session.js';
import { bearerOf, tokenCheck } from '../../../../platform/http/token-check.js';

/** Sign-in forms are one field: anything larger is not one. */
const FORM_LIMIT_BYTES = 4 * 1024;

/**
 * The operators' HTML pages under /admin: sign-in (a session cookie, session.ts) and the postback
 * log page. A page asked for without a session answers 401 with the sign-in form; scripts may send
 * `Authorization: Bearer $ADMIN_TOKEN` instead. Errors are pages too, never the JSON envelope.
 */
export async function adminPages(app: FastifyInstance, options: { runtime: Runtime; token: string; sessions: AdminSessions; refusals: PostbackRefusals; throttle: AdminTokenThrottle }) {
  const { sessions } = options;
  const isAdminToken = tokenCheck(options.token);
  // Requests that passed the sign-in check: their error pages show sign-out, as the other pages do.
  const signedIn = new WeakSet<FastifyRequest>();

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  app.setErrorHandler((error, request, reply) => {
    const known = error instanceof ApiError ? error : fromFramework(error as FastifyError, request);
    // Our own answers keep their status (a 503 when the database cannot be read); anything else is a fault of ours.
    const status = known?.statusCode ?? 500;
    if (status === 500) request.log.error({ err: error }, 'admin page failed');
    else reply.headers(known!.headers);
    const message = status === 500 ? 'The page could not be built; try again, and look at the service log if it happens again.' : known!.message;
    return sendErrorPage(reply, status, message, signedIn.has(request));
  });

  await app.register(loginRoutes, { sessions, isAdminToken, throttle: options.throttle });
  await app.register(async (pages) => {
    pages.addHook('onRequest', async (request, reply) => {
      const verdict = await judgeToken(request, bearerOf(request), isAdminToken, options.throttle);
      if (typeof verdict === 'object') return sendRefusedSignIn(reply, returnPath(request.url), verdict.refusedFor);
      if (verdict !== 'right' && !(await sessions.valid(request))) return sendLogin(reply, 401, returnPath(request.url));
      signedIn.add(request);
    });
    await pages.register(postbackPages, { runtime: options.runtime, refusals: options.refusals, prefix: '/postbacks' });
  });
}
