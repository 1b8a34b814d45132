import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { replay } from '../../platform/projection/replay.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { exportEvents } from '../../services/export/export-events.js';
import { parseExportFlags } from '../../services/export/options.js';
import type { TestRuntime } from './app.js';

/** A replay of the serves read model and an export of topic serves both fail with `named` (an event they cannot decode). */
export async function expectReplayAndExportToStopAt(t: TestRuntime, named: RegExp): Promise<void> {
  await expect(replay(t.runtime.db, t.runtime.eventLog, { projections: [servesProjection] })).rejects.toThrow(named);
  const dir = mkdtempSync(join(tmpdir(), 'undecodable-export-'));
  try {
    const parsed = parseExportFlags({ topic: 'serves', out: join(dir, 'serves.ndjson'), format: 'ndjson' });
    if (parsed.kind !== 'events') throw new Error('not an events export');
    await expect(exportEvents(t.runtime.eventLog, { ...parsed.request, topicPrefix: t.topicPrefix })).rejects.toThrow(named);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
