import { describe, expect, it } from 'vitest';
import { runNode } from '../support/cli.js';

/**
 * Runs listPositions in a process whose locale is `locale` (Node's ICU takes its default locale
 * from LC_ALL/LANG, and localeCompare follows it), returning the order of its positions.
 */
async function listedUnder(locale: string): Promise<string[]> {
  const script = `
    import { listPositions } from './platform/projection/positions.ts';
    const keys = ['b/t/0', 'aa/t/0', 'z/t/0', 'ab/z/0', 'ab/t/0', 'ab/s/0'];
    const listed = listPositions(new Map(keys.map((key) => [key, 1n])));
    process.stdout.write(JSON.stringify(listed.map((p) => p.projection + '/' + p.topic)));`;
  const result = await runNode(['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, LC_ALL: locale, LANG: locale }, timeoutMs: 30_000 });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as string[];
}

describe('positions are listed in one order whatever the locale', () => {
  const codeUnitOrder = ['aa/t', 'ab/s', 'ab/t', 'ab/z', 'b/t', 'z/t'];

  // Danish sorts "aa" after "z"; Estonian puts "z" between "s" and "t".
  it.each(['C.UTF-8', 'da_DK.UTF-8', 'et_EE.UTF-8', 'tr_TR.UTF-8'])('under %s: by code unit, as Postgres COLLATE "C" sorts', async (locale) => {
    expect(await listedUnder(locale)).toEqual(codeUnitOrder);
  });
});
