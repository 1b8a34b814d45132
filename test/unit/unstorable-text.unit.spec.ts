import { describe, expect, it } from 'vitest';
import { unstorableText } from '../../commands/unstorable-text.js';

describe('unstorableText', () => {
  it('names the value holding a NUL or a lone surrogate, by its path', () => {
    expect(unstorableText({ a: { b: ['ok', 'x\u0000'] } })).toEqual({ path: 'a.b[1]', kind: 'nul' });
    expect(unstorableText({ a: '\ud800' })).toEqual({ path: 'a', kind: 'surrogate' });
    expect(unstorableText({ a: '😀', b: ['é'] })).toBeUndefined();
  });

  it('checks the keys of objects too (a jsonb key or an Avro map key is text as well), named as keys', () => {
    expect(unstorableText({ internal: { credentials: { 'a\u0000': 'v' } } })).toEqual({ path: 'internal.credentials."a\\u0000" (a key)', kind: 'nul' });
    expect(unstorableText({ internal: { credentials: { '\ud800': 'v' } } })).toEqual({ path: 'internal.credentials."\\ud800" (a key)', kind: 'surrogate' });
    expect(unstorableText({ '\u0000': 1 })).toEqual({ path: '"\\u0000" (a key)', kind: 'nul' });
  });
});
