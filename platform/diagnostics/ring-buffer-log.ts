import type { BoundedEntry, BoundedLog } from './bounded-log.js';

/**
 * A BoundedLog in this process's memory: the newest `capacity` entries, ids counting from 1.
 * Each API process keeps its own, and a restart empties it.
 */
export function ringBufferLog<T>(capacity: number): BoundedLog<T> {
  const slots: BoundedEntry<T>[] = [];
  let appended = 0;
  const slot = (seq: number) => slots[(seq - 1) % capacity]!;
  const oldest = () => Math.max(1, appended - capacity + 1);
  const seqOf = (id: string) => Number(id.split('-')[0]);
  return {
    append(value) {
      appended += 1;
      slots[(appended - 1) % capacity] = { id: String(appended), value };
    },
    async older(before, count) {
      const found: BoundedEntry<T>[] = [];
      const top = before === undefined ? appended : Math.min(appended, seqOf(before) - 1);
      for (let seq = top; seq >= oldest() && found.length < count; seq -= 1) found.push(slot(seq));
      return found;
    },
    async newer(after, count) {
      const found: BoundedEntry<T>[] = [];
      for (let seq = Math.max(oldest(), seqOf(after) + 1); seq <= appended && found.length < count; seq += 1) found.push(slot(seq));
      return found;
    },
    flush: async () => {},
    close: async () => {},
  };
}
