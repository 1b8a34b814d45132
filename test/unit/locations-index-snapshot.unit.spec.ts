import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readSnapshot, writeSnapshot } from '../../reference/locations/snapshot-file.js';

/** The snapshot file format (snapshot-file.ts): what goes in comes out, and a damaged or foreign file is never decoded. */
const folder = mkdtempSync(join(tmpdir(), 'index-snapshot-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
let files = 0;
const fresh = () => join(folder, `s${files++}.snapshot`);

const shared = Int32Array.from([5, -1, 7]);
const sample = {
  count: 3,
  ratio: 0.25,
  flag: true,
  nothing: null,
  short: 'inline',
  latin: ` pâté ${'x'.repeat(500)} | é`,
  wide: ` 東京 𝒳 ${'ü'.repeat(100)} Ω`,
  arrays: { i32: Int32Array.from([-5, 0, 2 ** 31 - 1]), u32: Uint32Array.from([0, 2 ** 32 - 1]), u16: Uint16Array.from([65535]), u8: new Uint8Array(0) },
  names: Array.from({ length: 40 }, (_, i) => (i % 7 === 0 ? null : i % 5 === 0 ? '' : `name ${i} ${i % 3 === 0 ? 'Zürich' : 'Ōsaka 𝒳'}`)),
  few: ['a', null, 'b'],
  nested: [{ rows: shared }, { rows: shared }, [1, 'two', null]],
};

describe('index snapshot files', () => {
  it('give back what was written: numbers, texts of any code point, typed arrays, string lists with nulls, shared arrays once', async () => {
    const path = fresh();
    await writeSnapshot(path, 'FULL', 'k1', sample);
    const read = await readSnapshot(path, 'FULL', 'k1');
    expect(read.status).toBe('loaded');
    const value = (read as { value: typeof sample }).value;
    expect(value).toEqual(sample);
    expect(value.arrays.i32).toBeInstanceOf(Int32Array);
    expect(value.arrays.u16).toBeInstanceOf(Uint16Array);
    // One array stored once and given back as one array, as the index shares it.
    expect(value.nested[0]).not.toBe(value.nested[1]);
    expect((value.nested[0] as { rows: Int32Array }).rows).toBe((value.nested[1] as { rows: Int32Array }).rows);
    // Temporary files are renamed, never left behind.
    expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('round-trips any string list and typed array', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(fc.string({ unit: 'binary', maxLength: 80 }), { nil: null }), { maxLength: 60 }),
        fc.string({ unit: 'binary', minLength: 64, maxLength: 300 }),
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 50 }),
        async (list, text, numbers) => {
          const value = { list, text, numbers: Int32Array.from(numbers) };
          const path = fresh();
          await writeSnapshot(path, 'LEGACY', 'k', value);
          const read = await readSnapshot(path, 'LEGACY', 'k');
          rmSync(path);
          expect(read.status === 'loaded' && read.value).toEqual(value);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers missing, and stale for another key or catalog, without decoding', async () => {
    const path = fresh();
    expect(await readSnapshot(path, 'FULL', 'k1')).toEqual({ status: 'missing' });
    await writeSnapshot(path, 'FULL', 'k1', sample);
    expect((await readSnapshot(path, 'FULL', 'k2')).status).toBe('stale');
    expect((await readSnapshot(path, 'LEGACY', 'k1')).status).toBe('stale');
  });

  it('finds every damaged byte, a truncated or extended file, and a file that is not a snapshot', async () => {
    const path = fresh();
    await writeSnapshot(path, 'FULL', 'k1', sample);
    const bytes = readFileSync(path);
    const damaged = fresh();
    // Every byte: a flip in the key may read as another key (stale); anywhere else it is corrupt.
    for (let at = 0; at < bytes.length; at++) {
      const copy = Buffer.from(bytes);
      copy[at]! ^= 0x20;
      writeFileSync(damaged, copy);
      const read = await readSnapshot(damaged, 'FULL', 'k1');
      expect(read.status, `byte ${at}`).toMatch(/^(corrupt|stale)$/);
    }
    const last = Buffer.from(bytes);
    last[bytes.length - 40]! ^= 1;
    writeFileSync(damaged, last);
    expect(await readSnapshot(damaged, 'FULL', 'k1')).toEqual({ status: 'corrupt', reason: 'the checksum does not match' });

    writeFileSync(damaged, bytes);
    truncateSync(damaged, bytes.length - 1);
    expect((await readSnapshot(damaged, 'FULL', 'k1')).status).toBe('corrupt');
    writeFileSync(damaged, Buffer.concat([bytes, Buffer.from([0])]));
    expect((await readSnapshot(damaged, 'FULL', 'k1')).status).toBe('corrupt');
    for (const junk of [Buffer.alloc(0), Buffer.from('GEOIDX'), Buffer.from('not a snapshot at all, just text')]) {
      writeFileSync(damaged, junk);
      expect((await readSnapshot(damaged, 'FULL', 'k1')).status).toBe('corrupt');
    }
  });

  it('refuses values it could not give back the same', async () => {
    for (const value of [{ x: Number.NaN }, { x: new Float64Array(2) }, { $t: 1 }, { x: () => 1 }, { x: undefined }]) {
      await expect(writeSnapshot(fresh(), 'FULL', 'k', value)).rejects.toThrow(/snapshot:/);
    }
  });
});
