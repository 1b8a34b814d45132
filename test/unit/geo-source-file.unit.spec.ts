import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSourceRows } from '../../reference/locations/full/source-file.js';

const folder = mkdtempSync(join(tmpdir(), 'geo-source-file-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Bytes that are neither a zip's, a gzip's nor UTF-8 text (0xff never starts a UTF-8 character). */
const NOISE = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index % 2 === 0 ? 0xff : (index * 37) % 256)));

async function firstRefusal(file: string): Promise<string> {
  try {
    for await (const _row of readSourceRows(file)) return 'a row was read';
    return 'no row and no refusal';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('a release file that cannot be read is refused for what it is', () => {
  it('calls a .zip that does not begin as a zip damaged, not misencoded', async () => {
    const file = join(folder, 'geotargets-2025-07-23.csv.zip');
    writeFileSync(file, NOISE);
    expect(await firstRefusal(file)).toBe('"geotargets-2025-07-23.csv.zip" is not a zip (it does not begin as one); the file is damaged or cut short: download the release again');
  });

  it('calls the same bytes named .csv not UTF-8 text', async () => {
    const file = join(folder, 'geotargets-2025-07-23.csv');
    writeFileSync(file, NOISE);
    expect(await firstRefusal(file)).toMatch(/^"geotargets-2025-07-23\.csv" is not UTF-8 text \(near byte 0\)/);
  });

  it('calls a gzip named .zip gzip-compressed', async () => {
    const file = join(folder, 'geotargets-2025-07-24.csv.zip');
    writeFileSync(file, Buffer.concat([Buffer.from([0x1f, 0x8b]), NOISE]));
    expect(await firstRefusal(file)).toMatch(/^"geotargets-2025-07-24\.csv\.zip" is gzip-compressed/);
  });
});
