import { describe, expect, it } from 'vitest';
import { DiskLowError, watchDiskRoom } from '../../platform/data-dir/disk-room.js';
import { BackendUnavailableError } from '../../platform/startup.js';

const MB = 1024 * 1024;

describe('watchDiskRoom', () => {
  it('refuses writes under the minimum, with what is free and what to do, and takes them again once there is room', async () => {
    let free = 500 * MB;
    let failing = false;
    const room = await watchDiskRoom('/data', 128 * MB, { intervalMs: 60_000, freeBytes: async () => { if (failing) throw new Error('EIO'); return free; } });
    try {
      expect(() => room.assertRoom()).not.toThrow();
      free = 100 * MB;
      await room.refresh();
      expect(room.reading()).toEqual({ free_bytes: 100 * MB, min_free_bytes: 128 * MB, room: false });
      const refusal = (() => { try { room.assertRoom(); } catch (error) { return error; } })();
      expect(refusal).toBeInstanceOf(DiskLowError);
      // A backend that is unavailable: exit 4 for commands, a retryable 503 for routes.
      expect(refusal).toBeInstanceOf(BackendUnavailableError);
      expect((refusal as Error).message).toBe('DATA_DIR: the disk holding /data has 100 MB free, under DATA_DIR_MIN_FREE_MB (128): the embedded database takes no writes until it has room; free space on that disk (npm run replay -- --kept lists replay schemas to drop) or move DATA_DIR to a larger one');
      // A reading that fails keeps the last one.
      failing = true;
      await room.refresh();
      expect(room.reading().room).toBe(false);
      failing = false;
      free = 129 * MB;
      await room.refresh();
      expect(() => room.assertRoom()).not.toThrow();
    } finally {
      room.close();
    }
  });
});
