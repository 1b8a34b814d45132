import type { FastifyInstance, FastifyReply } from 'fastify';
import { html } from '../../../../platform/http/html.js';
import { layout, sendPage } from './layout.js';
import type { AdminSessions } from './session.js';

const HOME = '/admin/postbacks';
/** Where a sign-in may return to: an admin page of this origin only (never another host). */
const RETURN_TO = /^\/admin\/postbacks(?:[/?][^\s\\]*)?$/;

export const returnPath = (next: unknown) => (typeof next === 'string' && next.length <= 2_000 && RETURN_TO.test(next) ? next : HOME);

/** The sign-in form; it posts the token in the body, so the token is never in a URL or a log line. */
export function sendLogin(reply: FastifyReply, status: number, next: string, problem?: string) {
  const body = html`<h2>Sign in</h2>
${problem ? html`<div class="errors" role="alert">${problem}</div>` : ''}
<form method="post" action="/admin/login" class="search">
<label>Admin token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<input type="hidden" name="next" value="${next}">
<div class="buttons"><button type="submit">Sign in</button></div>
</form>
<p class="muted">The token is ADMIN_TOKEN. The session cookie holds a signature made with it, never the token itself, and lasts 8 hours.</p>`;
  return sendPage(reply, status, layout('Operator pages', body, { signedIn: false }));
}

/** `GET/POST /admin/login`, `POST /admin/logout`. */
export async function loginRoutes(app: FastifyInstance, { sessions, isAdminToken }: { sessions: AdminSessions; isAdminToken: (token: string) => boolean }) {
  app.get('/login', { schema: { hide: true } }, async (request, reply) => sendLogin(reply, 200, returnPath((request.query as { next?: unknown }).next)));

  app.post('/login', { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as { token?: unknown; next?: unknown };
    const next = returnPath(form.next);
    if (typeof form.token !== 'string' || !isAdminToken(form.token)) return sendLogin(reply, 401, next, 'That token was not accepted.');
    return reply.status(303).header('set-cookie', sessions.open(request)).header('location', next).send();
  });

  app.post('/logout', { schema: { hide: true } }, async (request, reply) =>
    reply.status(303).header('set-cookie', sessions.close(request)).header('location', '/admin/login').send(),
  );
}
