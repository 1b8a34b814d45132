/**
 * Copies of a card's short texts (an id, a time, a placement, a link: a few dozen bytes each)
 * into an answer, several hundred per answer. Buffer#copy makes a view of its source on every
 * call, which for so few bytes costs several times the copy; four bytes at a time through
 * DataViews made once costs a fraction of it (bytes are moved as they are, whatever the order).
 */
export function copyBytes(source: DataView, start: number, end: number, target: DataView, offset: number): number {
  const length = end - start;
  let index = 0;
  for (; index + 4 <= length; index += 4) target.setUint32(offset + index, source.getUint32(start + index, true), true);
  for (; index < length; index += 1) target.setUint8(offset + index, source.getUint8(start + index));
  return offset + length;
}

/** A DataView over the whole of `bytes`. */
export const viewOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
