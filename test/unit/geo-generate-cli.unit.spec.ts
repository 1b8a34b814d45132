import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNode } from '../support/cli.js';

/** `npm run geo:generate`'s flags: a value out of range is refused before anything is written. */
const dir = mkdtempSync(join(tmpdir(), 'offer-ledger-geo-generate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Into a folder of each test's own: what one writes is never what another finds. */
const generate = (out: string, args: string[]) =>
  runNode(['--import', 'tsx', 'test/support/geo-catalog-generate.ts', '--dir', join(dir, out), ...args], { env: process.env, timeoutMs: 60_000 });

describe('geo:generate command line', () => {
  it('refuses a --scale or --seed that is not a number in range with exit 2, writing nothing', async () => {
    for (const [flag, value] of [['--scale', 'abc'], ['--scale', '0'], ['--scale', '-1'], ['--scale', '1e9'], ['--seed', '1.5'], ['--seed', '']]) {
      const result = await generate('refused', [flag!, value!]);
      expect(result.status, `${flag} ${value}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^error: ${flag} must be a (whole )?number from `));
    }
    expect(existsSync(join(dir, 'refused'))).toBe(false);
  });

  it('writes a small catalog at a small scale', async () => {
    const result = await generate('written', ['--scale', '0.001']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ file: join(dir, 'written', 'geotargets-2026-08-12-generated.csv'), rows: expect.any(Number) });
  });
});
