import type { SeedContext } from './seed-context.js';

/** Seeds partners, offers with snapshots, and tracked links (filled in by the offers work). */
export async function seedCatalog(_context: SeedContext): Promise<void> {}
