import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendEvents, newEvent } from '../../commands/append.js';
import { configurePartner } from '../../commands/partners/configure.js';
import { runCommand } from '../../commands/run.js';
import type { EventLog, NewEvent } from '../../platform/events/event-log.js';
import type { Runtime } from '../../platform/runtime.js';
import { EventType, eventTopic } from '../../schemas/generated/events.js';
import { TOPICS } from '../../schemas/topics.js';

/** Every TypeScript source of the project, relative to its root. */
function sources(dir = '.'): string[] {
  const skipped = new Set(['node_modules', '.git', '.stack', '.data', 'bench-results']);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '.' ? entry.name : join(dir, entry.name);
    if (entry.isDirectory()) return skipped.has(entry.name) ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Files outside platform/, test/ and bench/ (which own or measure the log) whose code matches. */
function callersOf(pattern: RegExp): string[] {
  return sources()
    .filter((path) => !/^(platform|test|bench)\//.test(path))
    .filter((path) => pattern.test(readFileSync(path, 'utf8')));
}

/** An event log that records what it is asked; nothing else of the runtime is used. */
function recordingRuntime() {
  const calls: { method: string; topic?: string; events?: NewEvent[] }[] = [];
  const eventLog = {
    kind: 'embedded',
    async ensureTopics() {
      calls.push({ method: 'ensureTopics' });
    },
    async append(topic: string, events: NewEvent[]) {
      calls.push({ method: 'append', topic, events });
      return events.map((_, index) => ({ topic, partition: 0, offset: String(index) }));
    },
  } as unknown as EventLog;
  return { calls, runtime: { eventLog } as Runtime };
}

describe('the write side appends through one helper', () => {
  it('only commands/append.ts calls eventLog.append', () => {
    expect(callersOf(/eventLog\??\.append\(/)).toEqual(['commands/append.ts']);
  });

  it('only the platform creates topics (once, when a process opens the log)', () => {
    expect(callersOf(/\.ensureTopics\(/)).toEqual([]);
  });

  it('a command appends its event without creating topics', async () => {
    const { calls, runtime } = recordingRuntime();
    const result = await runCommand(configurePartner, { name: 'Acme' }, { runtime, now: () => new Date('2026-03-01T00:00:00Z') });
    expect(calls.map(({ method, topic }) => [method, topic])).toEqual([['append', 'partners']]);
    expect(calls[0]!.events).toEqual([expect.objectContaining({ key: result.partner_id, type: EventType.PartnerConfigured })]);
    expect(result).toMatchObject({ event_id: expect.any(String), topic: 'partners', partition: 0, offset: '0' });
  });

  it('refuses an event of another topic, before anything is appended', async () => {
    const { calls, runtime } = recordingRuntime();
    const entry = newEvent(EventType.CatalogEntryRemoved, 'entry-1', { event_id: 'e1', entry_id: 'entry-1', reason: null, removed_at: 0 });
    await expect(appendEvents(runtime, 'offers', [entry])).rejects.toThrow(`${EventType.CatalogEntryRemoved} is not an event of topic offers`);
    expect(calls).toEqual([]);
  });

  it('refuses an event holding a NUL anywhere, naming the field, before anything is appended', async () => {
    const { calls, runtime } = recordingRuntime();
    const entry = newEvent(EventType.CatalogEntryRemoved, 'entry-1', { event_id: 'e1', entry_id: 'entry-1', reason: 'gone\u0000', removed_at: 0 });
    await expect(appendEvents(runtime, 'catalog', [entry])).rejects.toThrow(expect.objectContaining({ name: 'CommandInputError', field: 'reason' }));
    const nested = { key: 'k', type: EventType.CatalogEntryRemoved, value: { event_id: 'e1', details: { goals: [{ event: 'ok' }, { event: 'x\u0000' }] } } };
    await expect(appendEvents(runtime, 'catalog', [nested])).rejects.toThrow(expect.objectContaining({ field: 'details.goals[1].event' }));
    expect(calls).toEqual([]);
  });

  it.each([
    ['a lone high surrogate', 'A\ud800B'],
    ['a lone low surrogate', 'A\udc00'],
    ['two high surrogates', '\ud800\ud800\udc00'],
  ])('refuses %s (UTF-8 cannot carry it), naming the field; a paired one passes', async (_, text) => {
    const { calls, runtime } = recordingRuntime();
    const entry = (reason: string) => newEvent(EventType.CatalogEntryRemoved, 'entry-1', { event_id: 'e1', entry_id: 'entry-1', reason, removed_at: 0 });
    await expect(appendEvents(runtime, 'catalog', [entry(text)])).rejects.toThrow(
      expect.objectContaining({ name: 'CommandInputError', field: 'reason', message: expect.stringMatching(/lone UTF-16 surrogate/) }),
    );
    expect(calls).toEqual([]);
    await appendEvents(runtime, 'catalog', [entry('emoji \ud83d\ude00 fine')]);
    expect(calls).toHaveLength(1);
  });
});

describe('the topic list', () => {
  it('designs every topic an event is written to, once, with at least one partition', () => {
    const designed = TOPICS.map((design) => design.topic);
    expect(new Set(designed).size).toBe(designed.length);
    for (const topic of new Set(Object.values(eventTopic))) expect(designed).toContain(topic);
    for (const design of TOPICS) expect(Number.isInteger(design.partitions) && design.partitions >= 1, design.topic).toBe(true);
  });
});
