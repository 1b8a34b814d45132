import { randomBytes } from 'node:crypto';
import { adminCommands } from '../../commands/index.js';
import type { Runtime } from '../../platform/runtime.js';
import { commandExecutor, type CommandExecutor } from '../../services/admin/command-executor.js';
import { projections } from '../../services/projector/projectors.js';

/**
 * Accounts and offers for serving tests, made through the admin commands (each one sees the
 * read models up to the log's end and leaves its own events applied, so the projectors must run).
 */
export function servingAdmin(runtime: Runtime) {
  const exec: CommandExecutor = commandExecutor(runtime, { projections, catchUpTimeoutMs: 60_000 });
  const byName = new Map(adminCommands.map((command) => [command.name, command]));
  const run = async (name: string, input: Record<string, unknown>) => exec.run(byName.get(name)!, input) as Promise<Record<string, string>>;
  const unique = () => randomBytes(4).toString('hex');

  return {
    run,
    async developer() {
      const { developer_id } = await run('developer:register', { name: `dev ${unique()}`, email: `dev-${unique()}@example.com` });
      return developer_id!;
    },
    async application(developerId: string, status: 'live' | 'live_limited' | 'paused' | 'suspended' = 'live') {
      const { application_id } = await run('application:register', { developer_id: developerId, name: `app ${unique()}`, status });
      return application_id!;
    },
    async key(applicationId: string, kind: 'live' | 'test' = 'live') {
      return (await run('api-key:issue', { application_id: applicationId, kind })) as { key: string; key_id: string };
    },
    async placement(applicationId: string, status: 'active' | 'inactive' = 'active') {
      const { placement_id } = await run('placement:create', { application_id: applicationId, name: `placement ${unique()}`, status });
      return placement_id!;
    },
    async partner() {
      const { partner_id } = await run('partner:configure', { name: `partner ${unique()}` });
      return partner_id!;
    },
    async offer(input: Record<string, unknown>) {
      const { offer_id } = await run('offer:upsert', { status: 'active', kind: 'local', ...input });
      return offer_id!;
    },
  };
}

/** Public details with one CPA goal (or CPS with `rate`). */
export function details(category: string, pricing: { amount?: string; rate?: string } = { amount: '1.00' }, title = `offer in ${category}`) {
  return {
    offer_info: { title, category: { id: category }, description: 'served in tests' },
    entity: { id: 'ent-1', name: 'Acme', type: 'merchant' },
    goals: [
      {
        event: 'install',
        pricing: pricing.rate !== undefined ? { model: 'cps', rate: pricing.rate } : { model: 'cpa', amount: pricing.amount, currency: 'USD' },
      },
    ],
  };
}
