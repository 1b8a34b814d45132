import { describe, expect, it } from 'vitest';
import { partitionCountNote, partitionsUnlikeDesign } from '../../platform/events/topic-partitions.js';

describe('topics whose partition count is not their design', () => {
  const topics = [
    { name: 'p.accounts', partitions: [0, 1, 2, 3, 4] },
    { name: 'p.partners', partitions: [0] },
    { name: 'p.serves', partitions: [0, 1] },
  ];
  const designed = new Map([['p.accounts', 3], ['p.partners', 1], ['p.serves', 6]]);

  it('are those with more or fewer partitions than designed', () => {
    expect(partitionsUnlikeDesign(designed, topics)).toEqual([
      { name: 'p.accounts', partitions: 5, designed: 3 },
      { name: 'p.serves', partitions: 2, designed: 6 },
    ]);
  });

  it('are said to have had partitions added, or to have been created with fewer, with what to do', () => {
    const [added, fewer] = partitionsUnlikeDesign(designed, topics).map(partitionCountNote);
    expect(added).toMatch(/^topic p\.accounts has 5 partitions, not the 3 it is designed with: partitions were added to it, or it was created with more\. .*recreate the topic with 3 partitions/);
    expect(fewer).toMatch(/^topic p\.serves has 2 partitions, not the 6 it is designed with: it was created with fewer, before this service created it/);
  });
});
