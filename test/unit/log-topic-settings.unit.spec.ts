import { describe, expect, it } from 'vitest';
import { topicSettingsPlan, type TopicSetting } from '../../platform/events/log-topic-settings.js';

const inherited = (name: string, value: string): TopicSetting => ({ name, value, ownSetting: false, sensitive: false });
const own = (name: string, value: string | null, sensitive = false): TopicSetting => ({ name, value, ownSetting: true, sensitive });

describe('what an existing topic needs to be part of the log', () => {
  it('nothing when every setting keeps every event, inherited or its own', () => {
    expect(topicSettingsPlan('t', [inherited('retention.ms', '-1'), own('retention.bytes', '-1'), inherited('cleanup.policy', 'delete'), own('message.timestamp.type', 'LogAppendTime'), own('min.insync.replicas', '2')])).toEqual({ notes: [] });
  });

  it('replaces every inherited setting that fails the log (a time, a size, compaction, producer times), keeping the own ones', () => {
    const plan = topicSettingsPlan('t', [inherited('retention.ms', '604800000'), inherited('retention.bytes', '1073741824'), inherited('cleanup.policy', 'compact,delete'), inherited('message.timestamp.type', 'CreateTime'), own('min.insync.replicas', '2')]);
    expect(plan.settings).toEqual({ 'min.insync.replicas': '2', 'retention.ms': '-1', 'retention.bytes': '-1', 'cleanup.policy': 'delete', 'message.timestamp.type': 'LogAppendTime' });
    expect(plan.notes).toEqual([
      "topic t deletes events older than 604800000 ms (retention.ms), deletes the oldest events past 1073741824 bytes a partition (retention.bytes), keeps only the latest event of each key (cleanup.policy compact), takes each event's time from the clock of the process that appended it (message.timestamp.type CreateTime), inherited from the broker: now retention.ms=-1 retention.bytes=-1 cleanup.policy=delete message.timestamp.type=LogAppendTime",
    ]);
  });

  it('forbids an inherited unclean leader election (a copy missing acknowledged events made leader)', () => {
    const plan = topicSettingsPlan('t', [inherited('retention.ms', '-1'), inherited('unclean.leader.election.enable', 'true'), own('min.insync.replicas', '2')]);
    expect(plan.settings).toEqual({ 'min.insync.replicas': '2', 'unclean.leader.election.enable': 'false' });
    expect(plan.notes).toEqual([
      'topic t may make a copy missing acknowledged events its leader, dropping them (unclean.leader.election.enable true), inherited from the broker: now unclean.leader.election.enable=false',
    ]);
    expect(topicSettingsPlan('t', [inherited('unclean.leader.election.enable', 'false')])).toEqual({ notes: [] });
  });

  it("leaves an operator's own setting that drops events, saying which to change, and still fixes the inherited ones", () => {
    const plan = topicSettingsPlan('t', [own('retention.ms', '86400000'), inherited('cleanup.policy', 'compact')]);
    expect(plan.settings).toEqual({ 'retention.ms': '86400000', 'cleanup.policy': 'delete' });
    expect(plan.notes[0]).toBe('topic t deletes events older than 86400000 ms (retention.ms), set on the topic: left as it is, but the log needs retention.ms=-1; set it on the topic');
  });

  it('changes nothing when an own setting cannot be read to carry it over (the broker replaces them as a whole)', () => {
    const plan = topicSettingsPlan('t', [inherited('retention.ms', '604800000'), own('some.secret', null, true)]);
    expect(plan.settings).toBeUndefined();
    expect(plan.notes).toEqual(['topic t deletes events older than 604800000 ms (retention.ms), inherited from the broker: left as it is, as its own setting some.secret cannot be read to carry it over; set retention.ms=-1 on it']);
  });
});
