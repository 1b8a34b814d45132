import { describe, expect, it } from 'vitest';
import { forEachPage, positionOffsets, resolveSpans } from '../../platform/events/bounded-read.js';
import { LogBoundError, type EventBatch, type LoggedEvent } from '../../platform/events/event-log.js';

const extents = [
  { partition: 1, low: 10n, high: 50n },
  { partition: 0, low: 0n, high: 20n },
];

describe('bounded read spans', () => {
  it('default to the whole partition, in partition order', () => {
    expect(resolveSpans(extents)).toEqual([
      { partition: 0, from: '0', to: '20' },
      { partition: 1, from: '10', to: '50' },
    ]);
  });

  it('keep given offsets within the partition, and an end before the start is an empty span', () => {
    expect(resolveSpans(extents, new Map([[0, 5n], [1, 2n]]), new Map([[0, 99n], [1, 30n]]))).toEqual([
      { partition: 0, from: '5', to: '20' },
      { partition: 1, from: '10', to: '30' },
    ]);
    expect(resolveSpans(extents, new Map([[0, 15n]]), new Map([[0, 12n]]))[0]).toEqual({ partition: 0, from: '15', to: '15' });
  });

  it('positions must be of the topic, of partitions it has, each once, none past the end', () => {
    expect(positionOffsets('t', 'from', [{ topic: 't', partition: 1, offset: '12' }], extents)).toEqual(new Map([[1, 12n]]));
    // The end itself is a position (the exclusive end of an export to the end).
    expect(positionOffsets('t', 'to', [{ topic: 't', partition: 0, offset: '20' }], extents)).toEqual(new Map([[0, 20n]]));
    const attempts: [Parameters<typeof positionOffsets>[2], RegExp][] = [
      [[{ topic: 'u', partition: 0, offset: '1' }], /u:0:1 is not a position of topic t/],
      [[{ topic: 't', partition: 4, offset: '1' }], /topic t has no partition 4 \(it has 0-1\)/],
      [[{ topic: 't', partition: 0, offset: '1' }, { topic: 't', partition: 0, offset: '2' }], /partition 0 of t is given twice/],
      [[{ topic: 't', partition: 0, offset: '21' }], /t:0:21 is past the end of the log \(20\)/],
    ];
    for (const [positions, message] of attempts) {
      let caught: unknown;
      try {
        positionOffsets('t', 'to', positions, extents);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(LogBoundError);
      expect((caught as LogBoundError).bound).toBe('to');
      expect((caught as Error).message).toMatch(message);
    }
  });
});

describe('paged reads', () => {
  const event = (offset: number): LoggedEvent => ({ topic: 't', partition: 0, offset: String(offset), key: 'k', type: 'x', value: {}, schemaId: 1, timestamp: new Date(0) });

  it('hand over each span in pages, cut at its end', async () => {
    const pages: string[][] = [];
    await forEachPage('t', [{ partition: 0, from: '3', to: '10' }, { partition: 1, from: '0', to: '0' }], async (_partition, from) => {
      return Array.from({ length: 4 }, (_, index) => event(Number(from) + index));
    }, async (batch: EventBatch) => void pages.push(batch.events.map((e) => e.offset)));
    expect(pages).toEqual([['3', '4', '5', '6'], ['7', '8', '9']]);
  });

  it('stop at a page that comes back empty rather than ask forever', async () => {
    let asked = 0;
    await forEachPage('t', [{ partition: 0, from: '0', to: '10' }], async () => {
      asked += 1;
      return [];
    }, async () => {
      throw new Error('nothing to hand over');
    });
    expect(asked).toBe(1);
  });
});
