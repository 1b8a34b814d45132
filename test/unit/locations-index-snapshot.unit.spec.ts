import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { indexSnapshots } from '../../reference/locations/index-snapshots.js';
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

describe('index snapshots of a folder', () => {
  it('give a state back only under the key it was saved with, and only when `make` accepts it', async () => {
    const lines: string[] = [];
    const snapshots = indexSnapshots(join(folder, 'cache', 'nested'), (line) => lines.push(line));
    expect(await snapshots.restore('FULL', ['release-a'], (state) => state)).toBeUndefined();
    snapshots.save('FULL', ['release-a'], () => sample);
    await snapshots.settled();
    expect(await snapshots.restore('FULL', ['release-a'], (state) => state)).toEqual(sample);
    expect(await snapshots.restore('FULL', ['release-b'], (state) => state)).toBeUndefined();
    expect(await snapshots.restore('LEGACY', ['release-a'], (state) => state)).toBeUndefined();
    expect(await snapshots.restore('FULL', ['release-a'], () => undefined)).toBeUndefined();
    expect(await snapshots.restore('FULL', ['release-a'], () => {
      throw new Error('bad rows');
    })).toBeUndefined();
    expect(lines.join('\n')).toMatch(/FULL index snapshot written[\s\S]*loaded from its snapshot[\s\S]*is stale[\s\S]*does not fit[\s\S]*not usable \(bad rows\)/);
  });

  it('log, never throw, when the folder cannot be used', async () => {
    const file = join(folder, 'not-a-folder');
    writeFileSync(file, 'x');
    const lines: string[] = [];
    const snapshots = indexSnapshots(file, (line) => lines.push(line));
    snapshots.save('LEGACY', ['k'], () => sample);
    await snapshots.settled();
    expect(await snapshots.restore('LEGACY', ['k'], (state) => state)).toBeUndefined();
    expect(lines.join('\n')).toMatch(/LEGACY index snapshot not written[\s\S]*LEGACY index snapshot not usable/);
  });

  it('remove what interrupted writes left behind, once it is old', async () => {
    const cache = join(folder, 'leftovers');
    mkdirSync(cache);
    const old = join(cache, 'full.snapshot.123.abcd.tmp');
    const recent = join(cache, 'full.snapshot.456.ef01.tmp');
    writeFileSync(old, 'partial');
    writeFileSync(recent, 'being written');
    const hoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(old, hoursAgo, hoursAgo);
    const snapshots = indexSnapshots(cache);
    snapshots.save('FULL', ['k'], () => sample);
    await snapshots.settled();
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(join(cache, 'full.snapshot'))).toBe(true);
  });
});
