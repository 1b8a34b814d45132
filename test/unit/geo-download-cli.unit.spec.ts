import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNode } from '../support/cli.js';

/** `npm run geo:download`'s flags: one that cannot name a release is refused before anything is fetched or written. */
const dir = mkdtempSync(join(tmpdir(), 'offer-ledger-geo-download-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const download = (args: string[]) =>
  runNode(['--import', 'tsx', 'reference/locations/download.ts', '--dir', join(dir, 'out'), ...args], { env: process.env, timeoutMs: 60_000 });

describe('geo:download command line', () => {
  it.each([
    [['--date', 'yesterday'], /^error: --date: must be a release date, YYYY-MM-DD \(got "yesterday"\)$/],
    [['--url', 'not an address'], /^error: --url: must be an http or https address/],
    [['--url', 'file:///etc/geotargets-2026-08-12.csv'], /^error: --url: must be an http or https address/],
    [['--no-such-flag'], /^error: unknown option '--no-such-flag'$/],
  ])('refuses %j with exit 2 in one line, writing nothing', async (args, message) => {
    const result = await download(args);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(message);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});
