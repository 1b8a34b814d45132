import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFolder } from '../../platform/fs/make-folder.js';

const root = mkdtempSync(join(tmpdir(), 'make-folder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('makeFolder', () => {
  it('makes every missing level with the mode asked for, and is content with a folder that exists', () => {
    const deep = join(root, 'a', 'b', 'c');
    makeFolder(deep, 0o700);
    for (const level of [join(root, 'a'), join(root, 'a', 'b'), deep]) expect(statSync(level).mode & 0o777).toBe(0o700);
    expect(() => makeFolder(deep)).not.toThrow();
  });

  it('throws the error of the level it cannot make, where mkdir -p would spin for good (a folder under /proc)', () => {
    expect(() => makeFolder('/proc/no-such-folder/inside')).toThrow(expect.objectContaining({ code: 'ENOENT', path: '/proc/no-such-folder' }));
    const file = join(root, 'a-file');
    writeFileSync(file, '');
    expect(() => makeFolder(join(file, 'inside'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect(() => makeFolder(file)).toThrow(expect.objectContaining({ code: 'EEXIST', path: file }));
  });
});
