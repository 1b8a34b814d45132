/**
 * Bodies larger than a route's requests can be are refused (413) before they are parsed. The
 * app's default is Fastify's 1 MiB; routes whose largest valid body is a few kB (Query, the
 * instance route) take this instead, so an anonymous caller does not get a megabyte parsed.
 */
export const SMALL_BODY_LIMIT = 64 * 1024;
