import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldPath } from '../../platform/text/field-path.js';
import { repeatedKey } from '../../platform/text/json-keys.js';

/** Any JSON value, objects nested in arrays and objects included. */
const jsonValue = fc.jsonValue({ maxDepth: 3 });
/** A key written as JSON.stringify writes it, or with every character escaped as \\uXXXX. */
const written = (key: string, escaped: boolean) =>
  escaped ? `"${[...key].map((character) => [...character].map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('')}"` : JSON.stringify(key);
const whitespace = fc.constantFrom('', ' ', '\n\t ', '\r\n');

describe('repeatedKey', () => {
  it('finds nothing in what JSON.stringify writes (its keys are distinct), whatever is nested', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), jsonValue), (object) => {
        expect(repeatedKey(JSON.stringify(object))).toBeUndefined();
        expect(repeatedKey(JSON.stringify(object, null, 2))).toBeUndefined();
        expect(repeatedKey(JSON.stringify([object, { nested: object }]))).toBeUndefined();
      }),
    );
  });

  it('finds a key written twice, however it is escaped or spaced, at any depth, naming where it is', () => {
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
          expect(repeatedKey(text)).toBe(fieldPath([key]));
          // The same text one level down, in an object and in an array.
          expect(repeatedKey(`{"outer":${text}}`)).toBe(fieldPath(['outer', key]));
          expect(repeatedKey(`{"list":[1,${space}"x",${space}[2,3],${text}]}`)).toBe(fieldPath(['list', 3, key]));
        },
      ),
    );
  });

  it('tells keys from string values that look like keys', () => {
    expect(repeatedKey('{"a":"b","c":"a:"}')).toBeUndefined();
    expect(repeatedKey('{"a":"\\"a\\":","b":1}')).toBeUndefined();
    expect(repeatedKey('{"a":1,"b":{"a":2}}')).toBeUndefined();
    expect(repeatedKey('{"a":1,"b":[{"a":2}],"a":3}')).toBe('a');
    expect(repeatedKey('[{"a":1},{"a":1,"b":"x,y","a":2}]')).toBe('[1].a');
    expect(repeatedKey('{"context":{"intent":"a","intent":"b"}}')).toBe('context.intent');
  });
});
