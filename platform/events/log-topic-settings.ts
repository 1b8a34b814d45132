/**
 * The settings every topic of the log needs, whatever the broker's defaults:
 * - every event kept for good. The log is the source of truth: replays, point-in-time ledgers and
 *   every new read model read each topic from its first event, while Kafka deletes events after
 *   7 days by default (retention.ms), and a compacted topic keeps one event a key;
 * - each event's time taken by the broker as it appends it (LogAppendTime). A point in time
 *   (`--as-of`, an export's `--from`/`--to` times) is found through the log's timestamps, which
 *   must follow its order; with Kafka's default (CreateTime) they are the clocks of the processes
 *   that appended, which differ between API processes;
 * - no out-of-sync replica ever made leader (unclean.leader.election.enable=false). A broker set
 *   to allow it (for availability) would, once the in-sync copies are gone, elect one that lacks
 *   acknowledged events, and the log would lose them for good, and the offsets after them would
 *   be reused by other events.
 * Our topics are created with them as settings of their own.
 */
export const LOG_TOPIC_SETTINGS: Readonly<Record<string, string>> = {
  'retention.ms': '-1',
  'retention.bytes': '-1',
  'cleanup.policy': 'delete',
  'message.timestamp.type': 'LogAppendTime',
  'unclean.leader.election.enable': 'false',
};

/** A topic setting as the broker describes it. */
export interface TopicSetting {
  name: string;
  value: string | null;
  /** Set on the topic itself (an override), not inherited from the broker or Kafka's defaults. */
  ownSetting: boolean;
  sensitive: boolean;
}

/** What to do about one existing topic: settings to put on it, or what an operator should know. */
export interface TopicSettingsPlan {
  /** The topic's whole set of own settings after the change (the broker replaces them all at once), or undefined when nothing changes. */
  settings?: Record<string, string>;
  /** One line each: what was changed, or why a setting the log cannot work with was left. */
  notes: string[];
}

/** How a setting's value fails the log, or undefined when it is one the log works with. */
function failing(name: string, value: string | null): string | undefined {
  if (name === 'retention.ms' && value !== '-1') return `deletes events older than ${value} ms (retention.ms)`;
  if (name === 'retention.bytes' && value !== '-1') return `deletes the oldest events past ${value} bytes a partition (retention.bytes)`;
  if (name === 'cleanup.policy' && (value ?? '').split(',').map((policy) => policy.trim()).includes('compact')) return 'keeps only the latest event of each key (cleanup.policy compact)';
  if (name === 'message.timestamp.type' && value !== 'LogAppendTime') return `takes each event's time from the clock of the process that appended it (message.timestamp.type ${value})`;
  if (name === 'unclean.leader.election.enable' && value !== 'false') return 'may make a copy missing acknowledged events its leader, dropping them (unclean.leader.election.enable true)';
  return undefined;
}

/**
 * Inherited settings that fail the log are replaced on the topic (the topics of earlier builds
 * were created without settings of their own, so they deleted events after the broker's 7 days);
 * a topic's own setting that fails it was chosen by an operator and is left, and said.
 */
export function topicSettingsPlan(topic: string, settings: readonly TopicSetting[]): TopicSettingsPlan {
  const inherited = settings.filter((setting) => !setting.ownSetting && setting.name in LOG_TOPIC_SETTINGS && failing(setting.name, setting.value));
  const own = settings.filter((setting) => setting.ownSetting);
  const notes = own
    .filter((setting) => setting.name in LOG_TOPIC_SETTINGS)
    .flatMap((setting) => {
      const how = failing(setting.name, setting.value);
      return how ? [`topic ${topic} ${how}, set on the topic: left as it is, but the log needs ${setting.name}=${LOG_TOPIC_SETTINGS[setting.name]}; set it on the topic`] : [];
    });
  if (inherited.length === 0) return { notes };
  const wanted = inherited.map((setting) => `${setting.name}=${LOG_TOPIC_SETTINGS[setting.name]}`).join(' ');
  const what = inherited.map((setting) => failing(setting.name, setting.value)).join(', ');
  // The broker replaces a topic's own settings as a whole: one it will not show cannot be carried over.
  const hidden = own.find((setting) => setting.sensitive || setting.value === null);
  if (hidden) return { notes: [...notes, `topic ${topic} ${what}, inherited from the broker: left as it is, as its own setting ${hidden.name} cannot be read to carry it over; set ${wanted} on it`] };
  return {
    settings: { ...Object.fromEntries(own.map((setting) => [setting.name, setting.value as string])), ...Object.fromEntries(inherited.map((setting) => [setting.name, LOG_TOPIC_SETTINGS[setting.name]!])) },
    notes: [...notes, `topic ${topic} ${what}, inherited from the broker: now ${wanted}`],
  };
}
