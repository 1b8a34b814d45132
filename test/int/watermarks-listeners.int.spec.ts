import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { applyBatch } from '../../platform/projection/runner.js';
import { openWatermarks, type Watermarks } from '../../platform/projection/watermarks.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** Listeners of applied commits (the read caches) hear a commit before anyone waiting for it wakes. */
describe('watermark listeners', () => {
  let database: TestDatabase;
  let watermarks: Watermarks;

  beforeAll(async () => {
    database = await createTestDatabase();
    watermarks = await openWatermarks(database.db);
  });
  afterAll(async () => {
    await watermarks?.close();
    await database?.drop();
  });

  const event = (offset: number): LoggedEvent => ({ topic: 't', partition: 0, offset: String(offset), key: 'k', type: 'x', value: {}, schemaId: 0, timestamp: new Date() });
  const projection = (name: string) => ({ name, topics: ['t'], tables: [], apply: async () => {} });

  it('are called with the applied position before awaitApplied resolves, on another session\'s commit', async () => {
    const heard: string[] = [];
    const unsubscribe = watermarks.onApplied((position) => heard.push(position ? `${position.projection}@${position.next}` : 'gap'));
    let heardWhenWoken: string[] = [];
    const waiting = watermarks.awaitApplied('listened', [{ topic: 't', partition: 0, offset: '2' }], 30_000).then((applied) => {
      heardWhenWoken = [...heard];
      return applied;
    });
    await applyBatch(database.db, projection('listened'), { topic: 't', partition: 0, events: [event(0), event(1), event(2)] });
    expect(await waiting).toBe(true);
    expect(heardWhenWoken).toContain('listened@3');
    unsubscribe();
    await applyBatch(database.db, projection('listened'), { topic: 't', partition: 0, events: [event(3)] });
    expect(await watermarks.awaitApplied('listened', [{ topic: 't', partition: 0, offset: '3' }], 30_000)).toBe(true);
    expect(heard).not.toContain('listened@4');
  });
});
