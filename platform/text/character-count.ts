/**
 * Characters (Unicode code points) in `value`, what JSON Schema's minLength and maxLength count.
 * `value.length` counts UTF-16 units: two for an emoji or any other character outside the
 * Basic Multilingual Plane. A lone surrogate counts as one.
 */
export function characterCount(value: string): number {
  let count = value.length;
  for (let index = 0; index < value.length - 1; index += 1) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        index += 1;
      }
    }
  }
  return count;
}

/** Whether `value` has at most `max` characters; counts only when its UTF-16 length is over. */
export const atMostCharacters = (value: string, max: number) => value.length <= max || characterCount(value) <= max;
