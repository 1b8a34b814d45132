/**
 * The log is the source of truth: replays, point-in-time ledgers and every new read model read
 * each topic from its first event. A topic must therefore keep every event for good, which no
 * Kafka default does (retention.ms is 7 days unless a cluster says otherwise; a compacted topic
 * keeps one event a key). Our topics are created with these settings of their own.
 */
export const KEEP_EVERY_EVENT: Readonly<Record<string, string>> = {
  'retention.ms': '-1',
  'retention.bytes': '-1',
  'cleanup.policy': 'delete',
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
export interface RetentionPlan {
  /** The topic's whole set of own settings after the change (the broker replaces them all at once), or undefined when nothing changes. */
  settings?: Record<string, string>;
  /** One line each: what was changed, or why a setting that drops events was left. */
  notes: string[];
}

/** The value of a setting that keeps every event, or a description of how it drops some. */
function dropsEvents(name: string, value: string | null): string | undefined {
  if (name === 'retention.ms' && value !== '-1') return `deletes events older than ${value} ms (retention.ms)`;
  if (name === 'retention.bytes' && value !== '-1') return `deletes the oldest events past ${value} bytes a partition (retention.bytes)`;
  if (name === 'cleanup.policy' && (value ?? '').split(',').map((policy) => policy.trim()).includes('compact')) return 'keeps only the latest event of each key (cleanup.policy compact)';
  return undefined;
}

/**
 * Inherited settings that drop events are replaced on the topic (the topics of earlier builds
 * were created without settings of their own, so they deleted events after the broker's 7 days);
 * a topic's own setting that drops events was chosen by an operator and is left, and said.
 */
export function retentionPlan(topic: string, settings: readonly TopicSetting[]): RetentionPlan {
  const inherited = settings.filter((setting) => !setting.ownSetting && setting.name in KEEP_EVERY_EVENT && dropsEvents(setting.name, setting.value));
  const own = settings.filter((setting) => setting.ownSetting);
  const notes = own
    .filter((setting) => setting.name in KEEP_EVERY_EVENT)
    .flatMap((setting) => {
      const drop = dropsEvents(setting.name, setting.value);
      return drop ? [`topic ${topic} ${drop}, set on the topic: left as it is, but replays and new read models need every event of the log; set ${setting.name}=${KEEP_EVERY_EVENT[setting.name]} on it`] : [];
    });
  if (inherited.length === 0) return { notes };
  // The broker replaces a topic's own settings as a whole: one it will not show cannot be carried over.
  const hidden = own.find((setting) => setting.sensitive || setting.value === null);
  const what = inherited.map((setting) => dropsEvents(setting.name, setting.value)).join(', ');
  if (hidden) return { notes: [...notes, `topic ${topic} ${what}, inherited from the broker: left as it is, as its own setting ${hidden.name} cannot be read to carry it over; set ${inherited.map((setting) => `${setting.name}=${KEEP_EVERY_EVENT[setting.name]}`).join(' ')} on it`] };
  const kept = Object.fromEntries(own.map((setting) => [setting.name, setting.value as string]));
  const replaced = Object.fromEntries(inherited.map((setting) => [setting.name, KEEP_EVERY_EVENT[setting.name]!]));
  return {
    settings: { ...kept, ...replaced },
    notes: [...notes, `topic ${topic} ${what}, inherited from the broker: it now keeps every event (${Object.entries(replaced).map(([name, value]) => `${name}=${value}`).join(' ')})`],
  };
}
