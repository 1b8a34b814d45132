import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { v4 as uuidv4 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_NAMES } from '../../commands/postbacks/fields.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { linkRoutePrefix } from '../../services/api/routes/links/index.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { withoutTable } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { buildInstanceWorld, commandRunner, type InstanceWorld } from '../support/instance-world.js';
import { openApiPath, registeredRoutes, type OpenApiDocument } from '../support/openapi.js';
import { PROTOCOL, postbackWorld } from '../support/postback-world.js';
import { appendServes } from '../support/serves.js';

// GET /openapi.json and /docs on Postgres and Redis: the document is valid OpenAPI 3.1, names every
// route the app serves, and real answers of every public route match the schemas it gives.
let t: TestRuntime & { app: FastifyInstance };
let projectors: RunningProjectors;
let world: InstanceWorld;
let document: OpenApiDocument;

/**
 * The error statuses each operation must declare with its codes: the reference's Errors tables
 * (instance route, offer info route, postbacks; 429 where a route is rate-limited) and, where it
 * says "not shown", the README's choices.
 */
const FORBIDDEN = ['APPLICATION_NOT_SERVING', 'DEVELOPER_SUSPENDED', 'PUBLIC_TEST_SCOPE_DENIED'];
const LOCATION_ERRORS = { 400: ['BAD_REQUEST'], 404: ['NOT_FOUND'], 429: ['RATE_LIMITED'], 503: ['CATALOG_NOT_LOADED'] };
const ERROR_STATUSES: Record<string, Record<string, string[]>> = {
  'POST /v1/offers/instances': { 400: ['BAD_REQUEST'], 401: ['UNAUTHORIZED', 'ENV_MISMATCH'], 403: FORBIDDEN, 405: ['405'], 503: ['OFFER_INSTANCE_UNAVAILABLE'] },
  'GET /v1/offers/info': {
    400: ['BAD_REQUEST'],
    401: ['UNAUTHORIZED'],
    403: FORBIDDEN,
    404: ['NOT_FOUND'],
    409: ['OFFER_INFO_IDENTITY_CONFLICT'],
    503: ['OFFER_INFO_UNAVAILABLE'],
  },
  'POST /v1/offers/query': {
    400: ['BAD_REQUEST'],
    401: ['UNAUTHORIZED', 'ENV_MISMATCH'],
    403: ['APPLICATION_NOT_SERVING', 'DEVELOPER_SUSPENDED', 'PLACEMENT_INACTIVE'],
    404: ['NOT_FOUND'],
    503: ['QUERY_UNAVAILABLE'],
  },
  'GET /v1/locations/search': LOCATION_ERRORS,
  'GET /v1/locations/resolve': LOCATION_ERRORS,
  'GET /v1/locations/{location_id}': LOCATION_ERRORS,
  'POST /v1/postback/{partner_id}': { 400: ['INVALID_PAYLOAD'], 500: ['INTERNAL_ERROR'], 503: ['POSTBACK_V10_UNAVAILABLE', 'POSTBACK_INTAKE_UNAVAILABLE'] },
  'GET /v1/postback/{partner_id}': { 400: ['INVALID_PAYLOAD'], 500: ['INTERNAL_ERROR'], 503: ['POSTBACK_V10_UNAVAILABLE', 'POSTBACK_INTAKE_UNAVAILABLE'] },
  'GET /readyz': { 503: ['NOT_READY', 'SHUTTING_DOWN'] },
};

/** A response's JSON Schema, as far as these tests read it. */
interface EnvelopeSchema {
  required: string[];
  additionalProperties: boolean;
  properties: Record<'code' | 'data' | 'extra', { type?: string; enum?: string[]; additionalProperties?: boolean; required?: string[]; properties?: Record<string, { enum?: unknown[] }> }>;
}

const operationsOf = (openApi: OpenApiDocument) =>
  Object.entries(openApi.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));

const ajv = new Ajv2020({ strict: false, allErrors: true });
// A CommonJS module: its plugin is the `default` of module.exports.
ajvFormats.default(ajv);

beforeAll(async () => {
  // With ADMIN_TOKEN, so the admin API is registered and must stay out of the document.
  t = await createTestApp({ env: { LOCATION_RATE_LIMIT: '1000000', ADMIN_TOKEN: 'openapi-test-admin-token-0123456789' } });
  projectors = await startProjectors(t.runtime);
  world = await buildInstanceWorld(commandRunner(t.runtime));
  await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
  const response = await t.app.inject({ url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  document = response.json();
});
afterAll(async () => {
  await projectors?.stop();
  await t?.close();
});

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every route the app serves (not the docs page, the document itself or the admin API)', async () => {
    const routes = registeredRoutes(t.app).filter((route) => !/^[A-Z]+ \/(docs|openapi\.json|admin)\b/.test(route));
    const documented = new Set(Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`)));
    const get = new Set(routes.filter((route) => route.startsWith('GET ')).map((route) => route.slice('GET '.length)));
    // Fastify's automatic HEAD twin of a GET route is not an operation of its own.
    const operations = routes.filter((route) => !(route.startsWith('HEAD ') && get.has(route.slice('HEAD '.length)) && !documented.has(openApiPath(route))));
    expect(operations.length).toBeGreaterThanOrEqual(12);
    // Nor is a route that only refuses its method: the postback path answers other methods itself (so
    // the 405 is in its envelope), where other paths leave it to the not-found handler. Each such
    // route is asked: it must answer 405 naming only documented operations in Allow.
    const undocumented = operations.filter((route) => !documented.has(openApiPath(route)));
    const answers = [];
    for (const route of undocumented) {
      const [method, path] = route.split(' ') as [InjectOptions['method'], string];
      const response = await t.app.inject({ method, url: path.replace(/:[A-Za-z0-9_]+/g, uuidv4()) });
      const allowed = String(response.headers.allow ?? '').split(', ');
      answers.push({ route, status: response.statusCode, allowsOnlyDocumented: allowed.every((other) => documented.has(`${other} ${openApiPath(path)}`)) });
    }
    expect(answers).toEqual(undocumented.map((route) => ({ route, status: 405, allowsOnlyDocumented: true })));
    // …and nothing that is not served, nor anything internal.
    expect([...documented].filter((route) => !operations.map(openApiPath).includes(route))).toEqual([]);
  });

  it('describes every response (no generated placeholder)', () => {
    expect(JSON.stringify(document)).not.toContain('Default Response');
  });

  it('keeps hidden routes out: no admin or bench path', () => {
    expect(registeredRoutes(t.app)).toContain('POST /admin/commands/:name');
    expect(Object.keys(document.paths).filter((path) => /^\/(admin|bench|docs|openapi)/.test(path))).toEqual([]);
  });

  it('documents request parameters and bodies from the routes\' schemas', () => {
    const parameters = (path: string, method: string) =>
      ((document.paths[path]![method] as unknown as { parameters: { name: string; in: string }[] }).parameters ?? []).map((p) => `${p.in}:${p.name}`);
    expect(parameters('/v1/offers/info', 'get')).toEqual(expect.arrayContaining(['query:offer_id', 'query:offerurl']));
    expect(parameters('/v1/locations/search', 'get')).toEqual(expect.arrayContaining(['query:catalog', 'query:q', 'query:target_types', 'query:levels', 'query:cursor']));
    expect(parameters('/v1/locations/{location_id}', 'get')).toEqual(expect.arrayContaining(['path:location_id', 'query:catalog']));
    expect(parameters('/v1/offers/query', 'post')).toEqual(['header:X-SVC-Test']);
    expect(parameters('/v1/offers/instances', 'post')).toEqual(['header:X-SVC-Test']);
    const body = (path: string) => (document.paths[path]!.post as unknown as { requestBody: { required: boolean; content: Record<string, { schema: { properties: object } }> } }).requestBody;
    expect(Object.keys(body('/v1/offers/query').content['application/json']!.schema.properties)).toEqual(['placement_id', 'limit', 'context']);
    expect(Object.keys(body('/v1/offers/instances').content['application/json']!.schema.properties)).toEqual(['offer_instance_ids']);
    // A Query POST without any body is the request {}; the instance route needs its ids.
    expect([body('/v1/offers/query').required, body('/v1/offers/instances').required]).toEqual([false, true]);
    expect(JSON.stringify(document)).not.toContain('x-body-optional');
  });

  it('describes exactly the public routes: locations, Query, the offer routes, the link origin, postbacks, health and metrics', () => {
    const prefix = linkRoutePrefix(t.runtime.config.linkBase);
    expect(operationsOf(document).sort()).toEqual(
      [
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
        'GET /v1/locations/search',
        'GET /v1/locations/resolve',
        'GET /v1/locations/{location_id}',
        'POST /v1/offers/query',
        'POST /v1/offers/instances',
        'GET /v1/offers/info',
        'POST /v1/postback/{partner_id}',
        'GET /v1/postback/{partner_id}',
        `GET ${prefix}/{code}`,
        `HEAD ${prefix}/{code}`,
        `GET ${prefix}/static/{token}`,
        `HEAD ${prefix}/static/{token}`,
      ].sort(),
    );
  });

  it('declares each error status of the reference\'s Errors tables (and the README\'s choices) as its own response: the error envelope with its codes', () => {
    for (const [operation, statuses] of Object.entries(ERROR_STATUSES)) {
      const [method, path] = operation.split(' ') as [string, string];
      const responses = document.paths[path]![method.toLowerCase()]!.responses;
      for (const [status, codes] of Object.entries(statuses)) {
        const content = responses[status]?.content;
        expect(Object.keys(content ?? {}), `${operation} declares ${status}`).toEqual(['application/json']);
        const schema = content!['application/json']!.schema as EnvelopeSchema;
        expect(schema.required, `${operation} ${status}`).toEqual(expect.arrayContaining(['code', 'message', 'data', 'extra']));
        expect(schema.additionalProperties, `${operation} ${status}`).toBe(false);
        expect(schema.properties.data, `${operation} ${status}: data is exactly {}`).toMatchObject({ type: 'object', additionalProperties: false });
        expect(Object.keys(schema.properties.data.properties ?? {}), `${operation} ${status}`).toEqual([]);
        expect(schema.properties.code.enum, `${operation} ${status}`).toEqual(expect.arrayContaining(codes));
        // The postback's extra names its reasons (checked by the postback test); elsewhere every
        // code's plain envelope is valid, and a code the status does not give is not.
        if (path.startsWith('/v1/postback/')) continue;
        const validate = ajv.compile(schema);
        const extra = status === '429' ? { retry_after_seconds: 3 } : {};
        for (const code of codes) expect(validate({ code, message: 'why', data: {}, extra }) ? [] : validate.errors, `${operation} ${status} ${code}`).toEqual([]);
        expect(validate({ code: 'NOT_A_CODE_OF_THIS_STATUS', message: 'why', data: {}, extra }), `${operation} ${status}`).toBe(false);
        expect(validate({ code: codes[0], message: 'why', data: { id: 1 }, extra }), `${operation} ${status}`).toBe(false);
      }
    }
    const postbackReasons = (method: string, status: string) =>
      (document.paths['/v1/postback/{partner_id}']![method]!.responses[status]!.content!['application/json']!.schema as EnvelopeSchema).properties.extra.properties!.reason!.enum;
    for (const method of ['post', 'get']) {
      expect(postbackReasons(method, '400')).toContain('invalid_payload');
      expect(postbackReasons(method, '500')).toEqual(['internal_error']);
      expect(postbackReasons(method, '503')).toEqual(['postback_v10_unavailable', 'postback_intake_unavailable']);
    }
    // 429 always says when to retry.
    const limited = document.paths['/v1/locations/search']!.get!.responses['429']! as { headers: object; content: Record<string, { schema: EnvelopeSchema }> };
    expect(limited.content['application/json']!.schema.properties.extra.required).toEqual(['retry_after_seconds']);
    expect(Object.keys(limited.headers)).toEqual(['Retry-After']);
  });

  it('secures the offer routes with the Bearer API key, Query optionally, and nothing else', () => {
    expect(Object.keys((document as unknown as { security?: unknown }).security ?? {})).toEqual([]);
    expect((document as unknown as { components: { securitySchemes: object } }).components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      metricsToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    const security = Object.fromEntries(
      Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, (operation as { security?: unknown }).security]),
      ),
    );
    expect(security['POST /v1/offers/instances']).toEqual([{ apiKey: [] }]);
    expect(security['GET /v1/offers/info']).toEqual([{ apiKey: [] }]);
    expect(security['POST /v1/offers/query']).toEqual([{ apiKey: [] }, {}]);
    const secured = ['POST /v1/offers/instances', 'GET /v1/offers/info', 'POST /v1/offers/query'];
    expect(Object.entries(security).filter(([operation, requirement]) => !secured.includes(operation) && requirement !== undefined)).toEqual([]);
  });

  it('gives the location object one shape per catalog, with what the reference requires of each', () => {
    const ok = (document.paths['/v1/locations/{location_id}']!.get!.responses['200'] as { content: Record<string, { schema: object }> }).content['application/json']!.schema;
    const validate = ajv.compile(ok);
    const node = { location_id: '2840', name: 'United States', canonical_name: 'United States', country_code: 'US', target_type: 'Country', hierarchy_precision: 1, legacy_level: 'COUNTRY' };
    const full = { ...node, source_parent_location_id: null, parent_location_id: null, path: [node], chain_status: 'COMPLETE' };
    const answer = (data: object) => ({ code: 'SUCCESS', message: '', data, extra: {} });
    const fullData = (location: object) => ({ catalog: 'FULL', catalog_version: 'v1', source_file_date: '2025-07-15', location, path: [node], location_ids: ['2840'] });
    expect(validate(answer(fullData(full))), JSON.stringify(validate.errors)).toBe(true);
    const { chain_status: _status, ...withoutStatus } = full;
    expect(validate(answer(fullData(withoutStatus)))).toBe(false);
    expect(validate(answer(fullData({ ...full, chain_status: 'UNRESOLVED_SOURCE_PARENT' })))).toBe(false);
    expect(validate(answer(fullData({ ...full, chain_status: 'UNRESOLVED_SOURCE_PARENT', unresolved_source_parent_location_id: '9075393' })))).toBe(true);
    expect(validate(answer(fullData({ ...full, level: 'COUNTRY' })))).toBe(false);
    const legacyNode = { location_id: '2840', name: 'United States', level: 'COUNTRY' };
    const legacy = { location_id: '2840', name: 'United States', canonical_name: 'United States', country_code: 'US', target_type: 'Country', level: 'COUNTRY', parent_location_id: null, path: [legacyNode] };
    const legacyData = (location: object) => ({ registry_version: 'v1', source_file_date: '2025-07-15', location, path: [legacyNode], location_ids: ['2840'] });
    expect(validate(answer(legacyData(legacy))), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(answer(legacyData({ ...legacy, chain_status: 'COMPLETE' })))).toBe(false);
    expect(validate(answer(legacyData({ ...legacy, external_codes: { iso_3166_2: 'california' } })))).toBe(false);
  });


  it("gives the instance item the reference's two shapes: found with its fields, not_found with only the id and status", () => {
    const ok = (document.paths['/v1/offers/instances']!.post!.responses['200'] as { content: Record<string, { schema: object }> }).content['application/json']!.schema;
    const validate = ajv.compile(ok);
    const answer = (item: object) => ({ code: 'SUCCESS', message: '', data: { instances: [item] }, extra: {} });
    const id = '0192f3a0-0000-7000-8000-00000000a001';
    const offer = { offer_id: '0192f3a0-0000-7000-8000-00000000b001', offer_instance_id: id, offer_info: { status: 'paused' } };
    const found = { offer_instance_id: id, status: 'found', served_at: '2026-01-01T00:00:00Z', placement_id: null, offer };
    expect(validate(answer(found)), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(answer({ offer_instance_id: id, status: 'not_found' })), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(answer({ offer_instance_id: id, status: 'not_found', offer }))).toBe(false);
    expect(validate(answer({ offer_instance_id: id, status: 'found' }))).toBe(false);
    expect(validate(answer({ ...found, served_at: '2026-01-01T00:00:00.123Z' }))).toBe(false);
    expect(validate(answer({ ...found, served_at: '2026-01-01T02:00:00+02:00' }))).toBe(false);
    expect(validate(answer({ ...found, offer_instance_id: id.toUpperCase() }))).toBe(false);
  });
  it('documents the instance route\'s ids as the route takes them: a UUID in either case, nothing around it', () => {
    const body = (document.paths['/v1/offers/instances']!.post as unknown as { requestBody: { content: Record<string, { schema: object }> } }).requestBody.content['application/json']!.schema;
    const validate = ajv.compile(body);
    expect(validate({ offer_instance_ids: ['01A226A7-0060-73DB-8093-636C2B396BD7'] })).toBe(true);
    expect(validate({ offer_instance_ids: ['urn:uuid:01a226a7-0060-73db-8093-636c2b396bd7'] })).toBe(false);
  });

  it('names every operation with a unique operationId from its method and path', () => {
    const ids = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations as Record<string, { operationId?: string }>).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation.operationId] as const),
    );
    expect(ids.filter(([, id]) => typeof id !== 'string')).toEqual([]);
    expect(new Set(ids.map(([, id]) => id)).size).toBe(ids.length);
    expect(Object.fromEntries(ids)).toMatchObject({
      'GET /v1/locations/{location_id}': 'getV1LocationsByLocationId',
      'POST /v1/postback/{partner_id}': 'postV1PostbackByPartnerId',
      'POST /v1/offers/query': 'postV1OffersQuery',
      'HEAD /l/{code}': 'headLByCode',
    });
  });

  it('requires on the offer info route what the reference requires when details are returned (it answers only such offers)', () => {
    const ok = (document.paths['/v1/offers/info']!.get!.responses['200'] as { content: Record<string, { schema: { properties: { data: { required: string[]; properties: { offer_info: { required: string[] } } } } } }> }).content['application/json']!.schema;
    expect(ok.properties.data.required).toEqual(expect.arrayContaining(['offer_id', 'version', 'offer_info', 'entity', 'goals']));
    expect(ok.properties.data.properties.offer_info.required).toEqual(expect.arrayContaining(['status', 'title', 'category', 'description']));
  });

  it('documents the postback route: the current JSON contract, and the compatibility shapes as not current', () => {
    const path = '/v1/postback/{partner_id}';
    const operation = (method: string) => document.paths[path]![method] as unknown as { parameters: { name: string; in: string }[]; deprecated?: boolean; description: string; requestBody: { content: Record<string, { schema: { properties: object; additionalProperties?: boolean } }> } };
    const parameters = (method: string) => operation(method).parameters.map((p) => `${p.in}:${p.name}`);
    expect(parameters('post')).toEqual(expect.arrayContaining(['path:partner_id', 'header:SVC-Protocol-Version']));
    expect(parameters('get')).toEqual(expect.arrayContaining(['path:partner_id', ...FIELD_NAMES.map((name) => `query:${name}`)]));
    const { content } = operation('post').requestBody;
    expect(Object.keys(content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(Object.keys(content['application/json']!.schema.properties)).toEqual(FIELD_NAMES);
    expect(content['application/json']!.schema.additionalProperties).toBe(false);
    expect(Object.keys(content['application/x-www-form-urlencoded']!.schema.properties)).toEqual(FIELD_NAMES);
    expect(operation('get').deprecated).toBe(true);
    expect(operation('post').deprecated).toBeUndefined();
    expect(operation('get').description).toContain('not a current entrypoint');
    expect(operation('post').description).toContain('not a current entrypoint');
    const statuses = (method: string) => Object.keys(document.paths[path]![method]!.responses);
    // 4XX: the HTTP layer's own 408 for a request whose line and headers stall (its other refusals there are postback reasons).
    expect(statuses('post')).toEqual(['200', '400', '403', '404', '405', '408', '409', '413', '415', '417', '422', '500', '503', '4XX']);
    expect(statuses('get')).toEqual(['200', '400', '403', '404', '405', '409', '417', '422', '500', '503', '4XX']);
    // The explicit 408 is read before 4XX: it takes the HTTP layer's header-stall answer as well as the postback one.
    const timeout = (document.paths[path]!.post!.responses['408'] as { content: Record<string, { schema: object }> }).content['application/json']!.schema;
    const validate = ajv.compile(timeout);
    expect(validate({ code: 'REQUEST_TIMEOUT', message: 'the request did not arrive in time', data: {}, extra: {} }), JSON.stringify(validate.errors)).toBe(true);
    const bodyStall = {
      code: 'REQUEST_TIMEOUT', message: 'request_timeout', data: {},
      extra: { result: 'rejected', reason: 'request_timeout', correlation_id: '01a20000-0000-7000-8000-000000000001', retryable: false, event_logged: false },
    };
    expect(validate(bodyStall), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...bodyStall, extra: { reason: 'request_timeout' } })).toBe(false);
  });
});

/** One example in the document: where it is, its value, and the schema it must satisfy. */
interface DocumentExample {
  where: string;
  value: unknown;
  schema: object;
}

/**
 * Every example in the document: those of Media Type, Parameter and Header objects (`example`, and
 * the values of `examples`), checked against their `schema`, and the `examples` arrays of JSON
 * Schemas anywhere, checked against the schema that holds them.
 */
function examplesIn(node: unknown, where: string, inSchema = false): DocumentExample[] {
  if (typeof node !== 'object' || node === null) return [];
  if (Array.isArray(node)) return node.flatMap((item, index) => examplesIn(item, `${where}[${index}]`, inSchema));
  const object = node as Record<string, unknown>;
  const found: DocumentExample[] = [];
  if (inSchema && Array.isArray(object.examples)) {
    object.examples.forEach((value, index) => found.push({ where: `${where}.examples[${index}]`, value, schema: object }));
  }
  if (!inSchema && typeof object.schema === 'object' && object.schema !== null) {
    const schema = object.schema as object;
    if ('example' in object) found.push({ where: `${where}.example`, value: object.example, schema });
    if (typeof object.examples === 'object' && object.examples !== null && !Array.isArray(object.examples)) {
      for (const [name, example] of Object.entries(object.examples as Record<string, { value: unknown }>)) found.push({ where: `${where}.examples.${name}`, value: example.value, schema });
    }
  }
  for (const [key, value] of Object.entries(object)) {
    if (!inSchema && (key === 'example' || key === 'examples')) continue;
    found.push(...examplesIn(value, `${where}.${key}`, inSchema || key === 'schema'));
  }
  return found;
}

describe('examples in the document', () => {
  type Operation = { tags?: string[]; responses: Record<string, { content?: Record<string, { example?: unknown; examples?: object }>; headers?: Record<string, { schema: { examples?: unknown[] } }> }> };
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation: operation as unknown as Operation })),
    );

  it('every example is valid against the schema of the status (or parameter, or header) it belongs to', () => {
    const examples = examplesIn(document.paths, 'paths');
    // Every public operation's success and its main errors: well over one per operation.
    expect(examples.length).toBeGreaterThanOrEqual(operations().length * 3);
    const invalid = examples.flatMap(({ where, value, schema }) => {
      const validate = ajv.compile(schema);
      return validate(value) ? [] : [{ where, errors: validate.errors!.map((error) => `${error.instancePath} ${error.message}`) }];
    });
    expect(invalid).toEqual([]);
  });

  it("the location routes' 400 and 404 examples are what those routes answer", async () => {
    const cases: [path: string, status: '400' | '404', url: string][] = [
      ['/v1/locations/search', '400', '/v1/locations/search?catalog=FULL&q=fra&levels=COUNTRY'],
      ['/v1/locations/search', '404', '/v1/locations/search?parent_location_id=999999999'],
      ['/v1/locations/resolve', '400', '/v1/locations/resolve?catalog=FULL'],
      ['/v1/locations/resolve', '404', '/v1/locations/resolve?country=US&subdivision_code=US-ZZ'],
      ['/v1/locations/{location_id}', '400', '/v1/locations/2840?catalog=FULL&levels=COUNTRY'],
      ['/v1/locations/{location_id}', '404', '/v1/locations/999999999'],
    ];
    for (const [path, status, url] of cases) {
      const examples = (document.paths[path]!.get!.responses[status] as unknown as { content: Record<string, { examples: Record<string, { value: unknown }> }> }).content['application/json']!.examples;
      const response = await t.app.inject({ url });
      expect(response.statusCode, url).toBe(Number(status));
      expect(Object.values(examples).map((example) => example.value), url).toContainEqual(response.json());
    }
  });

  it('finds a wrong example: a code its status does not give, a field the envelope does not have', () => {
    const broken = structuredClone(document.paths['/v1/offers/info']!.get!) as unknown as Operation;
    const notFound = broken.responses['404']!.content!['application/json']!.examples as Record<string, { value: { code: string } }>;
    notFound.NOT_FOUND!.value.code = 'OFFER_INFO_IDENTITY_CONFLICT';
    const success = broken.responses['200']!.content!['application/json']!.examples as Record<string, { value: { data: object } }>;
    success.by_offer_id!.value.data = { ...success.by_offer_id!.value.data, offer_instance_id: '0192f7c4-0d15-7e9a-8b6c-2f4a6d8e0b1c' };
    const invalid = examplesIn(broken, 'info').filter(({ value, schema }) => !ajv.compile(schema)(value)).map(({ where }) => where);
    expect(invalid).toEqual(['info.responses.200.content.application/json.examples.by_offer_id', 'info.responses.404.content.application/json.examples.NOT_FOUND']);
  });

  it('gives every operation an example of its success: the body, or the redirect\'s Location', () => {
    const withoutSuccessExample = operations().filter(({ operation }) => {
      const status = Object.keys(operation.responses).filter((code) => /^[23][0-9][0-9]$/.test(code)).sort()[0];
      const success = status === undefined ? undefined : operation.responses[status]!;
      const bodies = Object.values(success?.content ?? {}).filter((media) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0);
      const headers = Object.values(success?.headers ?? {}).filter((header) => (header.schema.examples ?? []).length > 0);
      return bodies.length === 0 && (success?.content !== undefined || headers.length === 0);
    });
    expect(withoutSuccessExample.map(({ name }) => name)).toEqual([]);
  });

  it('gives each error status an operation declares an example of its own (the 4XX and 5XX ranges are the HTTP layer\'s)', () => {
    const errorsWithout = operations()
      .flatMap(({ name, operation }) =>
        Object.entries(operation.responses)
          .filter(([status, response]) => /^[45][0-9][0-9]$/.test(status) && Object.keys(response.content?.['application/json']?.examples ?? {}).length === 0)
          .map(([status]) => `${name} ${status}`),
      );
    expect(errorsWithout).toEqual([]);
  });

  it('groups every operation under one of the document\'s tags, each tag used', () => {
    const declared = ((document as unknown as { tags?: { name: string; description: string }[] }).tags ?? []);
    expect(declared.map((tag) => tag.name)).toEqual(['Locations', 'Query', 'Offers', 'Tracked links', 'Postbacks', 'Health']);
    expect(declared.filter((tag) => !tag.description)).toEqual([]);
    const names = declared.map((tag) => tag.name);
    expect(operations().filter(({ operation }) => operation.tags?.length !== 1 || !names.includes(operation.tags[0]!)).map(({ name }) => name)).toEqual([]);
    const tagOf = Object.fromEntries(operations().map(({ name, operation }) => [name, operation.tags![0]]));
    expect(tagOf).toMatchObject({
      'GET /v1/locations/search': 'Locations',
      'POST /v1/offers/query': 'Query',
      'POST /v1/offers/instances': 'Offers',
      'GET /v1/offers/info': 'Offers',
      'POST /v1/postback/{partner_id}': 'Postbacks',
      'GET /readyz': 'Health',
      'GET /metrics': 'Health',
    });
    expect(names.filter((tag) => !Object.values(tagOf).includes(tag))).toEqual([]);
  });
});

describe('real answers against the document', () => {
  interface Example {
    /** The document's path and method. */
    operation: string;
    request: InjectOptions;
    status: number;
  }
  const replayed = new Set<string>();

  /** Sends the request, checks the status, and validates the body against the document's schema for that status. */
  async function replay({ operation, request, status }: Example) {
    const [method, path] = operation.split(' ') as [string, string];
    // A request may use another method than the operation's: the path's 405 is the operation's.
    const response = await t.app.inject({ method: method as InjectOptions['method'], ...request });
    expect(response.statusCode, `${operation} ${String(request.url)}: ${response.body}`).toBe(status);
    // The status itself, not a range: every answer a route gives on purpose is declared.
    const declared = document.paths[path]![method.toLowerCase()]!.responses[String(status)];
    expect(declared, `${operation} documents ${status}`).toBeDefined();
    replayed.add(`${operation} ${status}`);
    // A HEAD answer has the status of its GET and never a body.
    if (declared!.content === undefined || (request.method ?? method) === 'HEAD') {
      expect(response.body, `${operation} ${status} has no body`).toBe('');
      return;
    }
    const [type, { schema }] = Object.entries(declared!.content)[0]!;
    expect(response.headers['content-type']).toContain(type);
    const value = type === 'application/json' ? response.json() : response.body;
    const validate = ajv.compile(schema);
    expect(validate(value) ? [] : validate.errors, `${operation} ${status}: ${response.body.slice(0, 300)}`).toEqual([]);
  }

  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  const json = (key: string | undefined, payload: unknown): InjectOptions => ({
    headers: { 'content-type': 'application/json', ...(key ? bearer(key) : {}) },
    payload: JSON.stringify(payload),
  });

  it('health and metrics', async () => {
    await replay({ operation: 'GET /healthz', request: { url: '/healthz' }, status: 200 });
    await replay({ operation: 'GET /readyz', request: { url: '/readyz' }, status: 200 });
    await replay({ operation: 'GET /metrics', request: { url: '/metrics' }, status: 200 });
    // The HTTP layer's refusals (417 for an Expect it cannot meet, 431) come on /metrics too: its ranges say so.
    expect(Object.keys(document.paths['/metrics']!.get!.responses)).toEqual(['200', '405', '4XX', '5XX']);
  });

  it('the location routes, in both catalogs, and their errors', async () => {
    const search = 'GET /v1/locations/search';
    const resolve = 'GET /v1/locations/resolve';
    const lookup = 'GET /v1/locations/{location_id}';
    const examples: [string, string, number][] = [
      [search, '/v1/locations/search?q=cal', 200],
      [search, '/v1/locations/search?levels=COUNTRY&locale=de', 200],
      [search, '/v1/locations/search?catalog=FULL&q=a&limit=2', 200],
      [search, '/v1/locations/search?catalog=FULL&q=cal&levels=CITY', 400],
      [search, '/v1/locations/search?catalog=NOPE', 400],
      [resolve, '/v1/locations/resolve?country=US&subdivision_code=US-CA', 200],
      [resolve, '/v1/locations/resolve?catalog=FULL&location_id=2840', 200],
      [resolve, '/v1/locations/resolve?catalog=FULL', 400],
      [lookup, '/v1/locations/2840', 200],
      [lookup, '/v1/locations/2840?catalog=FULL&locale=en', 200],
      [lookup, '/v1/locations/999999999', 404],
    ];
    for (const [operation, url, status] of examples) await replay({ operation, request: { url }, status });
  });

  it('Query, the instance route, offer info and the link origin, with their errors', async () => {
    const query = await t.app.inject({ method: 'POST', url: '/v1/offers/query', ...json(world.keys.main, { placement_id: world.placements.main, limit: 3 }) });
    expect(query.statusCode).toBe(200);
    const cards = (query.json() as { data: { cards: { offer_instance_id: string; offer_id: string; action?: { payload: { url: string } } }[] } }).data.cards;
    const card = cards.find((candidate) => candidate.action !== undefined)!;
    expect(card).toBeDefined();

    await replay({ operation: 'POST /v1/offers/query', request: { url: '/v1/offers/query', ...json(world.keys.main, { placement_id: world.placements.main }) }, status: 200 });
    await replay({ operation: 'POST /v1/offers/query', request: { url: '/v1/offers/query', ...json(world.keys.main, { limit: 0 }) }, status: 400 });
    await replay({ operation: 'POST /v1/offers/query', request: { url: '/v1/offers/query', ...json(undefined, {}) }, status: 401 });

    const instances = '/v1/offers/instances';
    await replay({ operation: `POST ${instances}`, request: { url: instances, ...json(world.keys.main, { offer_instance_ids: [card.offer_instance_id, '0190a000-0000-7000-8000-000000000000'] }) }, status: 200 });
    await replay({ operation: `POST ${instances}`, request: { url: instances, ...json(world.keys.main, { offer_instance_ids: [] }) }, status: 400 });
    await replay({ operation: `POST ${instances}`, request: { url: instances, ...json(world.keys.mainTest, { offer_instance_ids: [card.offer_instance_id] }) }, status: 401 });
    const ids = { offer_instance_ids: [card.offer_instance_id] };
    const envMismatch = json(world.keys.main, ids);
    await replay({ operation: `POST ${instances}`, request: { url: instances, ...envMismatch, headers: { ...envMismatch.headers, 'x-svc-test': 'true' } }, status: 401 });
    await replay({ operation: `POST ${instances}`, request: { url: instances, ...json(world.keys.sandbox, ids) }, status: 403 });
    await replay({ operation: `POST ${instances}`, request: { url: instances, ...json(world.keys.suspended, ids) }, status: 403 });
    await replay({ operation: `POST ${instances}`, request: { method: 'GET', url: instances, headers: bearer(world.keys.main) }, status: 405 });
    await replay({ operation: 'POST /v1/offers/query', request: { url: '/v1/offers/query', ...json(world.keys.main, { placement_id: world.placements.other }) }, status: 404 });
    await replay({ operation: 'POST /v1/offers/query', request: { url: '/v1/offers/query', ...json(world.keys.main, { placement_id: world.placements.mainInactive }) }, status: 403 });

    const info = (query: string, key = world.keys.main) => ({ url: `/v1/offers/info?${query}`, headers: bearer(key) });
    await replay({ operation: 'GET /v1/offers/info', request: info(`offer_id=${world.offers.rich}`), status: 200 });
    await replay({ operation: 'GET /v1/offers/info', request: info(`offerurl=${encodeURIComponent(card.action!.payload.url)}`), status: 200 });
    await replay({ operation: 'GET /v1/offers/info', request: info(''), status: 400 });
    await replay({ operation: 'GET /v1/offers/info', request: info(`offer_id=${world.offers.paused}`), status: 404 });
    await replay({ operation: 'GET /v1/offers/info', request: info(`offer_id=${world.offers.rich}`, world.keys.sandbox), status: 403 });
    await replay({ operation: 'GET /v1/offers/info', request: info(`offer_id=${world.offers.rich}`, world.keys.mainTest), status: 401 });
    const otherOffer = card.offer_id === world.offers.rich ? world.offers.bare : world.offers.rich;
    await replay({ operation: 'GET /v1/offers/info', request: info(`offer_id=${otherOffer}&offerurl=${encodeURIComponent(card.action!.payload.url)}`), status: 409 });

    // A read model that cannot be read: each offer route's 503, in its declared shape (a card and
    // an offer this process has not read yet, so no cache answers for them).
    const [unread] = await appendServes(t.runtime, [{ application_id: world.apps.main, offer_id: world.offers.rich, placement_id: world.placements.main }]);
    await withoutTable(t.runtime.db, 'served_instances', () =>
      replay({ operation: `POST ${instances}`, request: { url: instances, ...json(world.keys.main, { offer_instance_ids: [unread!.offer_instance_id] }) }, status: 503 }));
    await withoutTable(t.runtime.db, 'offers', () => replay({ operation: 'GET /v1/offers/info', request: info(`offer_id=${world.offers.pending}`), status: 503 }));

    const prefix = linkRoutePrefix(t.runtime.config.linkBase);
    const link = new URL(card.action!.payload.url).pathname;
    await replay({ operation: `GET ${prefix}/{code}`, request: { url: `${link}?sub_id1=abc` }, status: 302 });
    await replay({ operation: `HEAD ${prefix}/{code}`, request: { url: link }, status: 302 });
    await replay({ operation: `GET ${prefix}/{code}`, request: { url: `${link}?sub_id1=a&sub_id1=b` }, status: 400 });
    await replay({ operation: `GET ${prefix}/{code}`, request: { url: `${prefix}/ZZZZZZZZ` }, status: 404 });
    await replay({ operation: `GET ${prefix}/static/{token}`, request: { url: `${prefix}/static/st_unknown` }, status: 404 });
    await replay({ operation: `HEAD ${prefix}/static/{token}`, request: { url: `${prefix}/static/st_unknown` }, status: 404 });
  });

  it('the postback route: current contract, compatibility shapes, and their refusals', async () => {
    const postbacks = await postbackWorld(t.runtime);
    const card = await postbacks.serve(postbacks.cpaOffer);
    let n = 0;
    const identity = () => `openapi-${Date.now()}-${(n += 1)}`;
    const url = `/v1/postback/${postbacks.partner}`;
    const post = 'POST /v1/postback/{partner_id}';
    const get = 'GET /v1/postback/{partner_id}';
    // Injected from 127.0.0.1, which the world's partners allow.
    const current = (body: object, partner = postbacks.partner): InjectOptions => ({ url: `/v1/postback/${partner}`, headers: PROTOCOL, payload: JSON.stringify(body) });
    const valid = () => ({ event_name: 'purchase', offer_instance_id: card.offer_instance_id, event_id: identity() });

    await replay({ operation: post, request: current(valid()), status: 200 });
    const form = `event_name=purchase&offer_instance_id=${card.offer_instance_id}&order_id=${identity()}&amount=5.00&currency=EUR`;
    await replay({ operation: post, request: { url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form }, status: 200 });
    await replay({ operation: get, request: { url: `${url}?event_name=purchase&offer_instance_id=${card.offer_instance_id}&event_id=${identity()}&click_id={click_id}` }, status: 200 });

    await replay({ operation: post, request: current({ ...valid(), extra_field: 'x' }), status: 400 });
    await replay({ operation: post, request: { ...current(valid()), headers: { 'content-type': 'application/json' } }, status: 400 });
    await replay({ operation: post, request: current(valid(), postbacks.disabledPartner), status: 403 });
    await replay({ operation: post, request: current(valid(), uuidv4()), status: 404 });
    await replay({ operation: post, request: { ...current(valid()), headers: { ...PROTOCOL, 'content-type': 'text/plain' } }, status: 415 });
    await replay({ operation: post, request: { ...current(valid()), payload: JSON.stringify({ ...valid(), partner_txn_id: 'x'.repeat(20_000) }) }, status: 413 });
    const sale = { event_name: 'sale', offer_instance_id: (await postbacks.serve(postbacks.cpsOffer)).offer_instance_id, event_id: identity() };
    await replay({ operation: post, request: current(sale), status: 422 });
    const conflicting = valid();
    await replay({ operation: post, request: current(conflicting), status: 200 });
    await replay({ operation: post, request: current({ ...conflicting, amount: '1', currency: 'USD' }), status: 409 });
    await replay({ operation: get, request: { url: `${url}?event_name=purchase&offer_instance_id=${card.offer_instance_id}` }, status: 400 });
    await replay({ operation: get, request: { url: `${url}?event_name=purchase&offer_instance_id=${uuidv4()}&event_id=${identity()}` }, status: 404 });
  });

  it('answers a method a documented path does not have with the 405 each of its operations declares, Allow naming its methods', async () => {
    const concrete = (path: string) =>
      path
        .replace('{location_id}', '2840')
        .replace('{partner_id}', uuidv4())
        .replace('{code}', 'abcd2345')
        .replace('{token}', 'st_abcdefghijklmnop');
    for (const [path, methods] of Object.entries(document.paths)) {
      const documented = Object.keys(methods).map((method) => method.toUpperCase());
      for (const method of documented) {
        const url = concrete(path);
        await replay({ operation: `${method} ${path}`, request: { method: 'PATCH', url }, status: 405 });
        const allowed = String((await t.app.inject({ method: 'PATCH', url })).headers.allow).split(', ');
        expect(allowed, path).toEqual(expect.arrayContaining(documented.filter((name) => name !== 'HEAD')));
      }
    }
  });

  it('replayed a success of every documented operation', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    const withoutSuccess = operations.filter((operation) => ![...replayed].some((done) => done.startsWith(`${operation} `) && /\s(200|302)$/.test(done)));
    // The static-link routes are exercised with their 404 (a static link needs a registered token).
    expect(withoutSuccess.filter((operation) => !operation.includes('/static/'))).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('serves the Swagger UI page and its assets from the app, with no external script or style', async () => {
    for (const pagePath of ['/docs', '/docs/']) {
      const page = await t.app.inject({ url: pagePath });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('swagger-ui');
      expect(page.body).not.toMatch(/https?:\/\//);
      // Its own origin only, and nothing asked of the browser that breaks the page over plain http.
      const policy = String(page.headers['content-security-policy']);
      expect(policy).toContain("default-src 'self'");
      expect(policy).not.toMatch(/https:|upgrade-insecure-requests|swagger\.io/);
      const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
      expect(assets.length).toBeGreaterThanOrEqual(3);
      // Resolved as a browser resolves them against the page's own address.
      for (const asset of assets) {
        const response = await t.app.inject({ url: new URL(asset, `http://api.test${pagePath}`).pathname });
        expect(response.statusCode, `${pagePath}: ${asset}`).toBe(200);
        expect(response.body.length).toBeGreaterThan(0);
      }
    }
  });

  it('sends the page asked for with a query string to the page without it (its script would look for the document after the query)', async () => {
    for (const asked of ['/docs?x=1', '/docs/?url=https://elsewhere.example/doc.json']) {
      const answer = await t.app.inject({ url: asked });
      expect(answer.statusCode, asked).toBe(302);
      expect(answer.headers.location).toBe('/docs/');
    }
  });

  it('points the page at the same document', async () => {
    const served = await t.app.inject({ url: '/docs/json' });
    expect(served.statusCode).toBe(200);
    expect(served.json()).toEqual(document);
  });

  it('answers a file the page does not have with 404 in the envelope (its route exists for GET: not a 405)', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const missing = await t.app.inject({ method, url: '/docs/static/no-such-file.js' });
      expect(missing.statusCode, method).toBe(404);
      expect(missing.headers.allow, method).toBeUndefined();
    }
    expect((await t.app.inject({ url: '/docs/static/no-such-file.js' })).json()).toMatchObject({ code: 'NOT_FOUND', data: {} });
  });
});
