import rateLimit from '@fastify/rate-limit';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clickLink, openLink, SUB_ID_MAX_LENGTH, SUB_ID_NAMES, subIdsFromQuery, type ClickResult, type LinkState } from '../../../../commands/clicks/click.js';
import { documentOnlyValidation, errorStatuses, methodNotAllowedStatus } from '../../../../platform/http/envelope-schema.js';
import { CommandInputError } from '../../../../commands/command.js';
import { resultWithin } from '../../../../platform/async/deadline.js';
import { ApiError, badRequest, notFound, serviceUnavailable } from '../../../../platform/http/errors.js';
import { withExamples } from '../../../../platform/http/response-examples.js';
import { rawQueryOf, undecodableParameters } from '../../../../platform/http/form-pairs.js';
import type { Runtime } from '../../../../platform/runtime.js';
import { rootLinkOf, STATIC_TOKEN, type TrackedLinkRef } from '../../../../projections/offers/links/parse-link.js';
import { perClientRateLimit } from '../../client-rate-limit.js';
import { TAG } from '../../openapi/tags.js';
import { linkExamples, REDIRECT_LOCATION_EXAMPLE } from './examples.js';
import { logBackendFailure } from '../../../../platform/http/backend-failure-log.js';
import type { LinkReads } from '../../../../commands/clicks/target.js';
import { coalescedReads } from '../../../../platform/db/coalesced-reads.js';
import { findLinkTarget } from '../../../../projections/offers/links/link-target.js';
import { findServesByLinkCodes } from '../../../../projections/serves/queries.js';
import { openReadCaches, type ReadCaches } from '../../read-cache.js';
import { arrivedWhole } from '../../../../platform/http/whole-request.js';

/** The path the link origin's links live under: LINK_BASE's path without its trailing slash ('' at the root). */
export function linkRoutePrefix(linkBase: string): string {
  return new URL(linkBase).pathname.replace(/\/+$/, '');
}

// Every answer of the link origin is per click: never cached (a cached 302 would reuse a click id,
// a cached 410 would outlive a reactivated offer). The page that showed the link is the app's, and
// the destination learns what it needs from the click id, not from the Referer.
export const LINK_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };

/** Whether `path` is under the link path `prefix` (linkRoutePrefix's; '' at the root, where the app's own handlers answer). */
export const isUnderLinkPath = (prefix: string, path: string) => prefix !== '' && path.startsWith(`${prefix}/`);

// Declared for the document only: the handler reads the code and sub ids itself (an unusable code
// is a 404, a bad sub id the click command's 400), so Fastify does not validate them.
const subIdQuery = Type.Object(
  Object.fromEntries(SUB_ID_NAMES.map((name) => [name, Type.Optional(Type.String({ maxLength: SUB_ID_MAX_LENGTH, description: 'recorded with the click; at most once' }))])),
  { additionalProperties: true, description: 'other parameters are ignored' },
);
const linkResponses = withExamples({
  // HEAD answers 302 too, without a Location and without recording a click.
  302: {
    type: 'null',
    description: 'GET: redirect (Location) to the destination with the click id; the click is durable before this answer. HEAD: the same status and headers without Location, and no click recorded',
    headers: { Location: { type: 'string', format: 'uri', description: 'GET only: the destination with svc_click_id (HEAD sends none)', examples: [REDIRECT_LOCATION_EXAMPLE] } },
  },
  ...errorStatuses({
    400: { BAD_REQUEST: 'a sub_id parameter given more than once, too long, or not UTF-8 once percent-decoded' },
    404: { NOT_FOUND: 'no tracked link at this address (or a path no link can have), or a link without a destination' },
    ...methodNotAllowedStatus('GET, HEAD'),
    410: { OFFER_NOT_ACTIVE: 'the offer of this link is not active; the link opens again if the offer is reactivated' },
    429: { RATE_LIMITED: 'more than CLICK_RATE_LIMIT opens from this client address in a minute; retry after extra.retry_after_seconds' },
    503: { LINK_UNAVAILABLE: 'the link cannot be opened right now; retry shortly' },
  }),
}, linkExamples);
const linkSchema = (params: ReturnType<typeof Type.Object>, summary: string) => ({
  summary,
  tags: [TAG.links],
  params,
  querystring: subIdQuery,
  response: linkResponses,
});
const rootSchema = linkSchema(
  Type.Object({ code: Type.String({ description: 'the 8-character short code or a historical instance UUID' }) }),
  'Open a tracked link (short code or instance UUID)',
);
const staticSchema = linkSchema(Type.Object({ token: Type.String({ pattern: STATIC_TOKEN.source, description: 'a static link token (st_…)' }) }), 'Open a static tracked link');

function staticLink(token: string): TrackedLinkRef | undefined {
  return STATIC_TOKEN.test(token) ? { shape: 'static_path', code: token } : undefined;
}

/**
 * How long opening a link may take in all (reads, the wait for a code minted a moment ago, the
 * click's append): past it the answer is a 503 rather than a browser left waiting on a backend
 * that stopped answering. Reads that answer only after it log no click (nobody was redirected);
 * an append already under way when it passes may still land.
 */
const OPEN_DEADLINE_MS = 8_000;

/**
 * The link origin: GET {LINK_BASE}/{code}, /{instance UUID} and /static/st_… record a click
 * (LinkClicked, durable before the answer) and redirect (302) to the link's destination with the
 * click id; HEAD answers the same status without recording a click or minting an id (so no
 * Location). Errors, in the envelope: 400 a bad sub id (repeated, too long, holding a NUL, not
 * UTF-8), 404 no such link (or a path no link can have) or a link without a destination, 410 OFFER_NOT_ACTIVE, 503 LINK_UNAVAILABLE (retry).
 */
export async function linkRoutes(app: FastifyInstance, { runtime, prefix }: { runtime: Runtime; prefix: string }) {
  // Every answer under the link path, the 404s and 405s no handler here writes included.
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(LINK_HEADERS);
  });
  // Every GET is a click in the log: opens are limited per client address (HEAD too, for its reads).
  await app.register(rateLimit, perClientRateLimit(runtime, 'clicks', runtime.config.clickRateLimit));
  // Those answers belong to this context (and so get the hook) only with a handler of its own;
  // at the root (LINK_BASE without a path) the app's own handler answers, without the headers.
  if (prefix !== '') {
    app.setNotFoundHandler(async () => {
      throw notFound('no tracked link at this address');
    });
  }

  // Opens of cards read their card and offer through shared statements (cards coalesced, offers
  // from the cache emptied by every offers commit): one statement per open on a pool of ten held
  // the route to a few hundred opens a second, and the queue behind the pool grew without bound.
  // Opened at the first open, not here: paths no link can have are answered without any backend.
  let caches: Promise<ReadCaches> | undefined;
  const offerCaches = () =>
    (caches ??= runtime.watermarks().then(openReadCaches, (error: unknown) => {
      caches = undefined;
      throw error;
    }));
  app.addHook('onClose', async () => (await caches?.catch(() => undefined))?.close());
  const cards = coalescedReads((codes: string[]) => findServesByLinkCodes(runtime.db, codes));
  const reads: LinkReads = {
    target: (link) => findLinkTarget(runtime.db, link, (code) => cards.get(code)),
    offer: async (offerId) => (await (await offerCaches()).offers(runtime.db, [offerId])).get(offerId) ?? undefined,
  };

  async function follow(request: FastifyRequest, reply: FastifyReply, link: TrackedLinkRef | undefined) {
    // A body whose framing breaks is refused on the socket (400) as this request's answer: nothing is recorded before it is whole.
    if (!(await arrivedWhole(request.raw))) return reply.hijack();
    if (!link) throw notFound('no tracked link at this address');
    // The framework keeps such a value as it came (`caf%E9`): recorded, it would reach the partner unlike what was sent.
    const [undecodable] = undecodableParameters(rawQueryOf(request.url), SUB_ID_NAMES);
    if (undecodable !== undefined) throw badRequest(`${undecodable}: is not UTF-8 once percent-decoded; encode the text as UTF-8 before percent-encoding it`);
    let subIds;
    try {
      subIds = subIdsFromQuery(request.query as Record<string, unknown>);
    } catch (error) {
      if (error instanceof CommandInputError) throw badRequest(error.message);
      throw error;
    }
    let result: LinkState | ClickResult;
    try {
      const deadline = AbortSignal.timeout(OPEN_DEADLINE_MS);
      const opening: Promise<LinkState | ClickResult> =
        request.method === 'HEAD' ? openLink(runtime, link, reads) : clickLink(runtime, { link, sub_ids: subIds }, new Date(), { signal: deadline, reads });
      result = await resultWithin(opening, OPEN_DEADLINE_MS, () => new Error(`no answer from the read models or the log within ${OPEN_DEADLINE_MS} ms`));
    } catch (error) {
      // A read model or the log is unavailable (or too far behind): never a redirect without a
      // durable click, never a 404 for a link that may exist.
      logBackendFailure(request.log, error, 'link could not be opened');
      throw serviceUnavailable('LINK_UNAVAILABLE', 'the link cannot be opened right now; retry shortly');
    }
    switch (result.status) {
      case 'unknown':
        throw notFound('no tracked link at this address');
      case 'no_destination':
        throw notFound('this tracked link has no destination');
      case 'offer_inactive':
        throw new ApiError(410, 'OFFER_NOT_ACTIVE', 'the offer of this link is not active; the link opens again if the offer is reactivated');
      case 'open':
        return reply.status(302).send();
      case 'clicked':
        return reply.redirect(result.event.redirect_url, 302);
    }
  }

  // One handler for GET and HEAD: Fastify's automatic HEAD would record a click.
  const methods = ['GET', 'HEAD'];
  app.route({
    method: methods,
    url: '/:code',
    exposeHeadRoute: false,
    schema: rootSchema,
    ...documentOnlyValidation,
    handler: (request, reply) => follow(request, reply, rootLinkOf((request.params as { code: string }).code)),
  });
  app.route({
    method: methods,
    url: '/static/:token',
    exposeHeadRoute: false,
    schema: staticSchema,
    ...documentOnlyValidation,
    handler: (request, reply) => follow(request, reply, staticLink((request.params as { token: string }).token)),
  });
}
