import { adminCommands } from '../../commands/index.js';
import type { Runtime } from '../../platform/runtime.js';
import { commandExecutor } from '../../services/admin/command-executor.js';
import { projections, startProjectors } from '../../services/projector/projectors.js';

/** Runs an admin command and resolves once every read model has applied it. */
export type RunCommand = <R = Record<string, any>>(name: string, input: Record<string, unknown>) => Promise<R>;

export function commandRunner(runtime: Runtime): RunCommand {
  const executor = commandExecutor(runtime, { projections, catchUpTimeoutMs: 60_000 });
  return async (name, input) => {
    const command = adminCommands.find((candidate) => candidate.name === name);
    if (!command) throw new Error(`no command ${name}`);
    return (await executor.run(command, input)) as any;
  };
}

/** Public details of the offers below; the internals are there to prove they never leave. */
export const DETAILS = {
  offer_info: { title: 'Spring sale', category: { id: 'shopping' }, description: 'Ten percent off everything' },
  entity: { id: 'acme', name: 'Acme', type: 'merchant' },
  goals: [
    { event: 'install', pricing: { model: 'cpa', amount: '12.50', currency: 'USD' } },
    { event: 'sale', pricing: { model: 'cps', rate: '7.5' } },
  ],
  material: [{ format: 'image', url: 'https://cdn.example/icon.png', tag: 'icon' }],
  action: { name: 'Shop now', consumer_action: 'Open the store' },
};
export const INTERNAL = { credentials: { token: 'INTERNAL-TOKEN-1' }, settlement_contract: 'INTERNAL-CONTRACT-1', recommendation_context: { boost: 'INTERNAL-BOOST-1' } };
export const DESTINATION = 'https://merchant.example/landing?campaign=spring';

export interface InstanceWorld {
  partner_id: string;
  developer_id: string;
  apps: Record<'main' | 'other' | 'limited' | 'paused' | 'suspended' | 'ofSuspendedDeveloper', string>;
  keys: Record<'main' | 'mainTest' | 'mainRevoked' | 'other' | 'limited' | 'paused' | 'suspended' | 'ofSuspendedDeveloper' | 'sandbox', string>;
  placements: Record<'main' | 'mainInactive' | 'other', string>;
  offers: Record<'rich' | 'bare' | 'paused' | 'pending' | 'rejected' | 'expired' | 'remote' | 'deleted' | 'delisted' | 'testOnly', string>;
}

/**
 * Accounts and offers for the instance route, built through the admin commands: applications in
 * every status with their keys (live, test, revoked, sandbox), placements, and offers of every
 * kind, status and flag.
 */
export async function buildInstanceWorld(run: RunCommand): Promise<InstanceWorld> {
  const partner_id = (await run('partner:configure', { name: 'Instance partner' })).partner_id;
  const developer_id = (await run('developer:register', { name: 'Instance dev', email: `dev-${Date.now()}@instances.test` })).developer_id;
  const suspendedDeveloper = (await run('developer:register', { name: 'Suspended dev', email: `sus-${Date.now()}@instances.test` })).developer_id;
  const app = async (name: string, developer = developer_id) => (await run('application:register', { developer_id: developer, name })).application_id as string;
  const key = async (application_id: string, kind = 'live') => (await run('api-key:issue', { application_id, kind })).key as string;

  const apps = {
    main: await app('main'),
    other: await app('other'),
    limited: await app('limited'),
    paused: await app('paused'),
    suspended: await app('suspended'),
    ofSuspendedDeveloper: await app('of a suspended developer', suspendedDeveloper),
  };
  const keys = {
    main: await key(apps.main),
    mainTest: await key(apps.main, 'test'),
    mainRevoked: '',
    other: await key(apps.other),
    limited: await key(apps.limited),
    paused: await key(apps.paused),
    suspended: await key(apps.suspended),
    ofSuspendedDeveloper: await key(apps.ofSuspendedDeveloper),
    sandbox: (await run('sandbox-key:ensure', {})).key as string,
  };
  const revoked = await run('api-key:issue', { application_id: apps.main });
  await run('api-key:revoke', { key_id: revoked.key_id });
  keys.mainRevoked = revoked.key;
  const placements = {
    main: (await run('placement:create', { application_id: apps.main, name: 'feed' })).placement_id,
    mainInactive: (await run('placement:create', { application_id: apps.main, name: 'old feed', status: 'inactive' })).placement_id,
    other: (await run('placement:create', { application_id: apps.other, name: 'feed' })).placement_id,
  };
  await run('application:set-status', { application_id: apps.limited, status: 'live_limited' });
  await run('application:set-status', { application_id: apps.paused, status: 'paused' });
  await run('application:set-status', { application_id: apps.suspended, status: 'suspended' });
  await run('developer:set-status', { developer_id: suspendedDeveloper, status: 'suspended' });

  const offer = async (input: Record<string, unknown>) =>
    (await run('offer:upsert', { partner_id, kind: 'local', status: 'active', destination_url: DESTINATION, internal: INTERNAL, ...input })).offer_id as string;
  const offers = {
    rich: await offer({ details: DETAILS }),
    bare: await offer({}),
    paused: await offer({ status: 'paused', details: DETAILS }),
    pending: await offer({ status: 'pending', details: DETAILS }),
    rejected: await offer({ status: 'rejected', details: DETAILS }),
    expired: await offer({ status: 'expired', details: DETAILS }),
    remote: await offer({ kind: 'remote', internal: { ...INTERNAL, remote_endpoint: 'https://partner.example/offers' } }),
    deleted: await offer({ deleted: true, details: DETAILS }),
    delisted: await offer({ delisted: true, details: DETAILS }),
    testOnly: await offer({ test_only: true, details: DETAILS }),
  };
  await run('offer:publish-snapshot', { offer_id: offers.remote, language: 'en', content: DETAILS });
  return { partner_id, developer_id, apps, keys, placements, offers };
}

/** One credential case of the offer routes: what is sent, the key (read once the world is built), extra headers, the answer. */
export type CredentialCase = [string, () => string | undefined, Record<string, string>, number, string];

/**
 * The credentials both offer routes refuse alike (reference, Authentication rules 1, 3 and 4),
 * in the reference's order; the instance route adds ENV_MISMATCH (rule 2) on its own.
 */
export const refusedCredentials = (world: () => InstanceWorld): CredentialCase[] => [
  ['no Authorization header', () => undefined, {}, 401, 'UNAUTHORIZED'],
  ['an unknown key', () => 'svc_live_0000000000000000000000000000000000000000', {}, 401, 'UNAUTHORIZED'],
  ['a revoked key', () => world().keys.mainRevoked, {}, 401, 'UNAUTHORIZED'],
  ['a test key', () => world().keys.mainTest, {}, 401, 'UNAUTHORIZED'],
  ['a test key with X-SVC-Test: true', () => world().keys.mainTest, { 'x-svc-test': 'true' }, 401, 'UNAUTHORIZED'],
  ['the shared sandbox key', () => world().keys.sandbox, {}, 403, 'PUBLIC_TEST_SCOPE_DENIED'],
  ['a key of a suspended developer', () => world().keys.ofSuspendedDeveloper, {}, 403, 'DEVELOPER_SUSPENDED'],
  ['a key of a paused application', () => world().keys.paused, {}, 403, 'APPLICATION_NOT_SERVING'],
  ['a key of a suspended application', () => world().keys.suspended, {}, 403, 'APPLICATION_NOT_SERVING'],
];

/** The projectors started on `runtime`, a command runner, and the instance world built through it. */
export async function startInstanceWorld(runtime: Runtime) {
  const projectors = await startProjectors(runtime);
  const run = commandRunner(runtime);
  return { projectors, run, world: await buildInstanceWorld(run) };
}
