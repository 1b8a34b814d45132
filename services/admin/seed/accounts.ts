import type { SeedContext } from './seed-context.js';

/** Seeds developers, applications, keys and placements (filled in by the accounts work). */
export async function seedAccounts(_context: SeedContext): Promise<void> {}
