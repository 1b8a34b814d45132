/**
 * Bodies larger than a route's requests can be are refused (413) before they are parsed. The
 * app's default is Fastify's 1 MiB; Query, whose largest valid body is a few kB and which anyone
 * may call, takes this instead, so an anonymous caller does not get a megabyte parsed. (The
 * instance route keeps the default: its key is checked before the body is read, and the reference
 * answers any list over 100 ids 400 with the list's rule, which a 413 would pre-empt.)
 */
export const SMALL_BODY_LIMIT = 64 * 1024;
