import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { defaultInstanceCacheEntries, processMemoryLimit } from '../../platform/memory/bounds.js';
import { runNode } from '../support/cli.js';

const MB = 2 ** 20;

describe('the served-card cache bound derived from the memory limit', () => {
  it('keeps a sixteenth of the memory in cards, at most the former fixed 500,000', () => {
    // A 512 MB container was killed by the kernel with 500,000 cards and the full location catalog.
    expect(defaultInstanceCacheEntries(512 * MB)).toBe(131_072);
    expect(defaultInstanceCacheEntries(1024 * MB)).toBe(262_144);
    expect(defaultInstanceCacheEntries(2048 * MB)).toBe(500_000);
    expect(defaultInstanceCacheEntries(64 * 1024 * MB)).toBe(500_000);
    expect(defaultInstanceCacheEntries(1 * MB)).toBe(1_000);
  });

  it('takes the smaller of the container limit and the heap limit; an unconstrained process has only its heap limit', () => {
    expect(processMemoryLimit(4288 * MB, 512 * MB)).toBe(512 * MB);
    expect(processMemoryLimit(576 * MB, 1024 * MB)).toBe(576 * MB);
    expect(processMemoryLimit(576 * MB, 0)).toBe(576 * MB);
    expect(processMemoryLimit(576 * MB, 2 ** 64)).toBe(576 * MB);
    expect(processMemoryLimit(576 * MB, Number.MAX_SAFE_INTEGER)).toBe(576 * MB);
  });

  it('is the default of INSTANCE_CACHE_ENTRIES, which a set value overrides', () => {
    expect(loadConfig({}).instanceCacheEntries).toBe(defaultInstanceCacheEntries());
    expect(loadConfig({ INSTANCE_CACHE_ENTRIES: '700000' }).instanceCacheEntries).toBe(700_000);
    expect(loadConfig({ INSTANCE_CACHE_ENTRIES: '0' }).instanceCacheEntries).toBe(0);
  });

  it('follows the heap limit a process is started with (as the services are: --max-semi-space-size=64)', async () => {
    const config = fileURLToPath(new URL('../../platform/config/config.ts', import.meta.url));
    const script = `import { loadConfig } from ${JSON.stringify(config)}; console.log(loadConfig({}).instanceCacheEntries);`;
    const entries = async (oldSpaceMb: number) => {
      const result = await runNode(['--max-semi-space-size=64', `--max-old-space-size=${oldSpaceMb}`, '--import', 'tsx', '--input-type=module', '-e', script], { env: process.env });
      expect(result.status, result.stderr).toBe(0);
      return Number(result.stdout.trim());
    };
    // The heap limit is the old space plus three semi-spaces: 576 MB, and 960 MB.
    expect(await entries(384)).toBe(defaultInstanceCacheEntries(processMemoryLimit(576 * MB)));
    expect(await entries(768)).toBe(defaultInstanceCacheEntries(processMemoryLimit(960 * MB)));
    expect(await entries(384)).toBeLessThan(500_000);
  });
});
