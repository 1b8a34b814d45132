import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repeatedTopLevelKey } from '../../platform/text/json-keys.js';

/** Any JSON value, objects nested in arrays and objects included. */
const jsonValue = fc.jsonValue({ maxDepth: 3 });
/** A key written as JSON.stringify writes it, or with every character escaped as \\uXXXX. */
const written = (key: string, escaped: boolean) =>
  escaped ? `"${[...key].map((character) => [...character].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('')}"` : JSON.stringify(key);
const whitespace = fc.constantFrom('', ' ', '\n\t ', '\r\n');

describe('repeatedTopLevelKey', () => {
  it('finds nothing in what JSON.stringify writes (its keys are distinct), whatever is nested', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), jsonValue), (object) => {
        expect(repeatedTopLevelKey(JSON.stringify(object))).toBeUndefined();
        expect(repeatedTopLevelKey(JSON.stringify(object, null, 2))).toBeUndefined();
      }),
    );
  });

  it('finds a top-level key written twice, however it is escaped or spaced, and only at the top level', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string(), jsonValue), { selector: ([key]) => key, minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.boolean(),
        whitespace,
        jsonValue,
        (entries, pick, escaped, space, value) => {
          const [key] = entries[pick % entries.length]!;
          const members = entries.map(([name, member]) => `${JSON.stringify(name)}${space}:${space}${JSON.stringify(member)}`);
          const text = `{${members.join(',')},${space}${written(key, escaped)}${space}:${JSON.stringify(value)}}`;
          expect(repeatedTopLevelKey(text)).toBe(key);
          // The same text one level down, under a key of its own: nothing at the top is repeated.
          expect(repeatedTopLevelKey(`{"outer":${text},"list":[${text}]}`)).toBeUndefined();
        },
      ),
    );
  });

  it('tells keys from string values that look like keys', () => {
    expect(repeatedTopLevelKey('{"a":"b","c":"a:"}')).toBeUndefined();
    expect(repeatedTopLevelKey('{"a":"\\"a\\":","b":1}')).toBeUndefined();
    expect(repeatedTopLevelKey('{"a":1,"b":{"a":2}}')).toBeUndefined();
    expect(repeatedTopLevelKey('{"a":1,"b":[{"a":2}],"a":3}')).toBe('a');
    expect(repeatedTopLevelKey('[{"a":1,"a":2}]')).toBeUndefined();
  });
});
