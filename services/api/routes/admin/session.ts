import { createHmac, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

/**
 * Browser sessions of the admin pages, without the token ever leaving the login form: the cookie
 * holds an expiry and HMAC-SHA256(key, "admin-session.v2.<expiry>"), the key derived from
 * ADMIN_TOKEN with scrypt (sessionKey). Nothing is
 * stored on the server, every API process checks it alike, and changing ADMIN_TOKEN ends every
 * session. The cookie is HttpOnly (no script reads it), SameSite=Strict (no other site's page
 * sends it), limited to /admin, and Secure when the request came over https.
 */
const SESSION_COOKIE = 'admin_session';
export const SESSION_SECONDS = 8 * 60 * 60;
const VERSION = 'v2';

/** A session cookie's value: the version, the expiry (seconds), the MAC. */
const COOKIE_VALUE = new RegExp(`^${VERSION}\\.([0-9]{1,12})\\.([0-9a-f]{64})$`);

const scryptAsync = promisify(scrypt) as (password: string, salt: string, length: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

/**
 * The MAC key: scrypt of the token, once per process (adminSessions derives it when first needed,
 * off the event loop: its few hundred milliseconds would hold every route). Keyed by the token
 * itself, a copied cookie (an expiry and its MAC, the message known) let anyone test guesses of
 * the token offline at hash speed, and the token opens the whole admin API; each guess now costs
 * a scrypt.
 */
const sessionKey = (token: string) => scryptAsync(token, 'offer-ledger admin session key', 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });

const mac = (key: Buffer, expires: number) => createHmac('sha256', key).update(`admin-session.${VERSION}.${expires}`).digest('hex');

export interface AdminSessions {
  /** The Set-Cookie header of a new session. */
  open(request: FastifyRequest): Promise<string>;
  /** The Set-Cookie header that ends the session. */
  close(request: FastifyRequest): string;
  /** Whether the request carries a session cookie that is current and made with this token. */
  valid(request: FastifyRequest): Promise<boolean>;
}

export function adminSessions(token: string, now: () => number = Date.now): AdminSessions {
  // Derived at the first sign-in or page, not when the app is built.
  let derived: Promise<Buffer> | undefined;
  const key = () => (derived ??= sessionKey(token));
  const attributes = (request: FastifyRequest) => ({ httpOnly: true, sameSite: 'strict' as const, path: '/admin', secure: request.protocol === 'https' });
  return {
    async open(request) {
      const expires = Math.floor(now() / 1000) + SESSION_SECONDS;
      return stringifySetCookie({ name: SESSION_COOKIE, value: `${VERSION}.${expires}.${mac(await key(), expires)}`, maxAge: SESSION_SECONDS, ...attributes(request) });
    },
    close(request) {
      return stringifySetCookie({ name: SESSION_COOKIE, value: '', maxAge: 0, ...attributes(request) });
    },
    async valid(request) {
      const value = parseCookie(request.headers.cookie ?? '')[SESSION_COOKIE];
      const match = value ? COOKIE_VALUE.exec(value) : null;
      if (!match) return false;
      const expires = Number(match[1]);
      if (expires * 1000 <= now()) return false;
      return timingSafeEqual(Buffer.from(match[2]!, 'hex'), Buffer.from(mac(await key(), expires), 'hex'));
    },
  };
}
