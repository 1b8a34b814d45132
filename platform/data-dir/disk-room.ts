import { statfs } from 'node:fs/promises';
import { BackendUnavailableError } from '../startup.js';

/** Free bytes for this user on the filesystem holding a folder. */
export type FreeBytesOf = (dir: string) => Promise<number>;

const freeBytesOf: FreeBytesOf = async (dir) => {
  const stats = await statfs(dir);
  return Number(stats.bavail) * Number(stats.bsize);
};

const MB = 1024 * 1024;

/** The disk holding DATA_DIR has less room than DATA_DIR_MIN_FREE_MB: the embedded database takes no writes. */
export class DiskLowError extends BackendUnavailableError {
  constructor(dataDir: string, freeBytes: number, minFreeBytes: number) {
    super(
      'DATA_DIR',
      `the disk holding ${dataDir} has ${Math.floor(freeBytes / MB)} MB free, under DATA_DIR_MIN_FREE_MB (${Math.floor(minFreeBytes / MB)}): the embedded database takes no writes until it has room`,
      'free space on that disk (npm run replay -- --kept lists replay schemas to drop) or move DATA_DIR to a larger one',
    );
    this.name = 'DiskLowError';
  }
}

export interface DiskRoom {
  /** Throws DiskLowError when the last reading was under the minimum. */
  assertRoom(): void;
  /** The last reading. */
  reading(): { free_bytes: number; min_free_bytes: number; room: boolean };
  /** Reads the room again now (it is also read every intervalMs). */
  refresh(): Promise<void>;
  close(): void;
}

/**
 * Watches the room left on the disk holding the embedded database. The engine runs on this thread,
 * and a full disk makes it spin inside its log flush, taking the process with it (no timer, signal
 * or request runs again): so writes stop, as retryable failures, while there is still room for the
 * ones under way, a log segment (16 MB) and a checkpoint. Read at once, then every `intervalMs`.
 */
export async function watchDiskRoom(dataDir: string, minFreeBytes: number, options: { intervalMs?: number; freeBytes?: FreeBytesOf } = {}): Promise<DiskRoom> {
  const read = options.freeBytes ?? freeBytesOf;
  let free = await read(dataDir);
  let reading: Promise<void> | undefined;
  const refresh = () => {
    // A reading that fails keeps the last one: the filesystem itself is not what is being judged.
    reading ??= read(dataDir).then((bytes) => { free = bytes; }, () => {}).finally(() => { reading = undefined; });
    return reading;
  };
  const timer = setInterval(refresh, options.intervalMs ?? 1_000);
  timer.unref();
  return {
    assertRoom() {
      if (free < minFreeBytes) throw new DiskLowError(dataDir, free, minFreeBytes);
    },
    reading: () => ({ free_bytes: free, min_free_bytes: minFreeBytes, room: free >= minFreeBytes }),
    refresh,
    close: () => clearInterval(timer),
  };
}
