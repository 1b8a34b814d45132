import { createHash, randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { endianness } from 'node:os';

/**
 * A built index's state as one file: a JSON header, then the large values (typed arrays, long
 * strings, long string lists) as raw sections, then the sha256 of everything before it. Writing
 * and reading go section by section, so neither holds a second copy of the whole file: typed
 * arrays are written from and read into their own memory, strings are encoded one at a time.
 *
 * A read answers `missing` (no file), `stale` (written for another key, e.g. another release or
 * format) or `corrupt` (bad magic, header, length or checksum); only a file that checks out whole
 * is decoded into a value.
 *
 * Layout: MAGIC (8 bytes) | header length (u32 LE) | header (UTF-8 JSON) | sections | sha256 (32).
 */
const MAGIC = Buffer.from('GEOIDX\0\x01', 'latin1');
const DIGEST = 32;

const ARRAYS = { i32: Int32Array, u32: Uint32Array, u16: Uint16Array, u8: Uint8Array } as const;
type ArrayType = keyof typeof ARRAYS;
type TypedArray = InstanceType<(typeof ARRAYS)[ArrayType]>;
type SectionType = ArrayType | 'latin1' | 'utf16';

interface SectionHeader {
  type: SectionType;
  /** Elements (code units for strings). */
  count: number;
}

interface Header {
  kind: string;
  key: string;
  endian: string;
  sections: SectionHeader[];
  /** The value, large parts replaced by {$t: section} or {$s: [lengths section, text section]}. */
  value: unknown;
}

/** Strings and string lists shorter than this stay in the header. */
const INLINE_STRING = 64;
const INLINE_LIST = 16;
/** Length of a null entry in a string list section. */
const NULL_LENGTH = 0xffffffff;

const typeOfArray = (value: ArrayBufferView): ArrayType | undefined =>
  value instanceof Int32Array ? 'i32' : value instanceof Uint32Array ? 'u32' : value instanceof Uint16Array ? 'u16'
  : value instanceof Uint8Array && !Buffer.isBuffer(value) ? 'u8' : undefined;

const isStringList = (value: unknown[]) => value.length >= INLINE_LIST && value.every((item) => typeof item === 'string' || item === null);

const sectionBytes = (section: SectionHeader) =>
  section.type === 'latin1' ? section.count : section.type === 'utf16' ? section.count * 2 : section.count * ARRAYS[section.type].BYTES_PER_ELEMENT;

/** Splits a value into its JSON skeleton and the sections' data (same object twice: one section). */
function encode(root: unknown): { value: unknown; sections: SectionHeader[]; data: (TypedArray | string)[] } {
  const sections: SectionHeader[] = [];
  const data: (TypedArray | string)[] = [];
  const seen = new Map<object, unknown>();
  const section = (type: SectionType, count: number, bytes: TypedArray | string) => {
    sections.push({ type, count });
    data.push(bytes);
    return sections.length - 1;
  };
  const text = (value: string) => section(/[^\x00-\xff]/.test(value) ? 'utf16' : 'latin1', value.length, value);
  const walk = (value: unknown, at: string): unknown => {
    if (value === null || typeof value === 'boolean') return value;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new Error(`snapshot: ${at} is not a finite number`);
      return value;
    }
    if (typeof value === 'string') return value.length < INLINE_STRING ? value : { $t: text(value) };
    if (typeof value !== 'object') throw new Error(`snapshot: ${at} cannot be stored (${typeof value})`);
    const known = seen.get(value);
    if (known !== undefined) return known;
    let encoded: unknown;
    if (ArrayBuffer.isView(value)) {
      const type = typeOfArray(value);
      if (type === undefined) throw new Error(`snapshot: ${at} is an unsupported typed array`);
      encoded = { $t: section(type, (value as TypedArray).length, value as TypedArray) };
    } else if (Array.isArray(value)) {
      if (isStringList(value)) {
        const items = value as (string | null)[];
        const lengths = Uint32Array.from(items, (item) => (item === null ? NULL_LENGTH : item.length));
        encoded = { $s: [section('u32', lengths.length, lengths), text(items.join(''))] };
      } else {
        encoded = value.map((item, i) => walk(item, `${at}[${i}]`));
      }
    } else {
      const fields: Record<string, unknown> = {};
      for (const [name, item] of Object.entries(value)) {
        if (name.startsWith('$')) throw new Error(`snapshot: ${at}.${name}: names starting with $ are reserved`);
        fields[name] = walk(item, `${at}.${name}`);
      }
      encoded = fields;
    }
    seen.set(value, encoded);
    return encoded;
  };
  return { value: walk(root, 'value'), sections, data };
}

function decode(skeleton: unknown, sections: (TypedArray | string)[]): unknown {
  const lists = new Map<number, (string | null)[]>();
  const walk = (value: unknown): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map(walk);
    const fields = value as Record<string, unknown>;
    if ('$t' in fields) return sections[fields.$t as number];
    if ('$s' in fields) {
      const [lengthsAt, textAt] = fields.$s as [number, number];
      let list = lists.get(lengthsAt);
      if (list === undefined) {
        const lengths = sections[lengthsAt] as Uint32Array;
        const joined = sections[textAt] as string;
        list = new Array<string | null>(lengths.length);
        let offset = 0;
        for (let i = 0; i < lengths.length; i++) {
          const length = lengths[i]!;
          if (length === NULL_LENGTH) list[i] = null;
          else {
            list[i] = joined.slice(offset, offset + length);
            offset += length;
          }
        }
        if (offset !== joined.length) throw new CorruptSnapshot('a string list does not add up');
        lists.set(lengthsAt, list);
      }
      return list;
    }
    return Object.fromEntries(Object.entries(fields).map(([name, item]) => [name, walk(item)]));
  };
  return walk(skeleton);
}

class CorruptSnapshot extends Error {}

function parseHeader(bytes: Buffer): Header {
  let header: Header;
  try {
    header = JSON.parse(bytes.toString()) as Header;
  } catch {
    throw new CorruptSnapshot('the header is not JSON');
  }
  const sectionsValid = Array.isArray(header?.sections) && header.sections.every((section) =>
    (section?.type === 'latin1' || section?.type === 'utf16' || Object.hasOwn(ARRAYS, section?.type)) && Number.isSafeInteger(section.count) && section.count >= 0);
  if (!sectionsValid || typeof header.kind !== 'string' || typeof header.key !== 'string') throw new CorruptSnapshot('the header is malformed');
  return header;
}

/**
 * Writes `value` for (kind, key) to `path`: to a temporary file first, renamed over `path` when
 * complete, so a reader (another process too) sees the old file or the new one, never a part.
 */
export async function writeSnapshot(path: string, kind: string, key: string, value: unknown): Promise<number> {
  const { value: skeleton, sections, data } = encode(value);
  const header: Header = { kind, key, endian: endianness(), sections, value: skeleton };
  const headerBytes = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const file = await open(temporary, 'w');
  const hash = createHash('sha256');
  let written = 0;
  const put = async (bytes: Uint8Array, hashed = true) => {
    if (hashed) hash.update(bytes);
    written += bytes.length;
    // A large write may be partial: write the rest.
    for (let done = 0; done < bytes.length; ) done += (await file.write(bytes, done, bytes.length - done)).bytesWritten;
  };
  try {
    await put(MAGIC);
    await put(length);
    await put(headerBytes);
    for (let i = 0; i < data.length; i++) {
      const item = data[i]!;
      await put(typeof item === 'string'
        ? Buffer.from(item, sections[i]!.type === 'utf16' ? 'utf16le' : 'latin1')
        : new Uint8Array(item.buffer, item.byteOffset, item.byteLength));
    }
    await put(hash.digest(), false);
    await file.close();
    await rename(temporary, path);
  } catch (error) {
    await file.close().catch(() => {});
    await rm(temporary, { force: true });
    throw error;
  }
  return written;
}

export type SnapshotRead =
  | { status: 'loaded'; value: unknown; bytes: number }
  | { status: 'missing' }
  | { status: 'stale' | 'corrupt'; reason: string };

/** Reads the snapshot of (kind, key) at `path`; see the module comment for the answers. */
export async function readSnapshot(path: string, kind: string, key: string): Promise<SnapshotRead> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    throw error;
  }
  try {
    const { size } = await file.stat();
    const hash = createHash('sha256');
    let position = 0;
    const take = async <T extends Uint8Array>(target: T, hashed = true): Promise<T> => {
      if (position + target.length > size) throw new CorruptSnapshot('the file is shorter than its header says');
      for (let done = 0; done < target.length; ) {
        const { bytesRead } = await file.read(target, done, target.length - done, position + done);
        if (bytesRead === 0) throw new CorruptSnapshot('the file ended early');
        done += bytesRead;
      }
      position += target.length;
      if (hashed) hash.update(target);
      return target;
    };
    const opening = await take(Buffer.alloc(MAGIC.length + 4));
    if (!opening.subarray(0, MAGIC.length).equals(MAGIC)) throw new CorruptSnapshot('not a location index snapshot');
    const headerLength = opening.readUInt32LE(MAGIC.length);
    if (headerLength > size) throw new CorruptSnapshot('the file is shorter than its header says');
    const header = parseHeader(await take(Buffer.alloc(headerLength)));
    if (header.kind !== kind || header.key !== key || header.endian !== endianness()) {
      return { status: 'stale', reason: `written for ${header.kind} ${String(header.key).slice(0, 12)}…, wanted ${kind} ${key.slice(0, 12)}…` };
    }
    const expected = position + header.sections.reduce((sum, section) => sum + sectionBytes(section), 0) + DIGEST;
    if (expected !== size) throw new CorruptSnapshot(`the file has ${size} bytes, its header says ${expected}`);
    const sections: (TypedArray | string)[] = [];
    for (const section of header.sections) {
      if (section.type === 'latin1' || section.type === 'utf16') {
        const bytes = await take(Buffer.allocUnsafeSlow(sectionBytes(section)));
        sections.push(bytes.toString(section.type === 'utf16' ? 'utf16le' : 'latin1'));
      } else {
        const array = new ARRAYS[section.type](section.count);
        await take(new Uint8Array(array.buffer));
        sections.push(array);
      }
    }
    const digest = hash.digest();
    if (!(await take(Buffer.alloc(DIGEST), false)).equals(digest)) throw new CorruptSnapshot('the checksum does not match');
    return { status: 'loaded', value: decode(header.value, sections), bytes: size };
  } catch (error) {
    if (error instanceof CorruptSnapshot) return { status: 'corrupt', reason: error.message };
    throw error;
  } finally {
    await file.close();
  }
}
