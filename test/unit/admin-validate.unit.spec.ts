import { Type } from '@sinclair/typebox';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CommandInputError } from '../../commands/command.js';
import { fieldPath, validateInput } from '../../commands/validate.js';
import { inputFromFlags } from '../../services/admin/cli-options.js';
import { runCli } from '../support/cli.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';

const schema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    count: Type.Optional(Type.Integer({ minimum: 0 })),
    enabled: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Type.String())),
    rules: Type.Optional(Type.Array(Type.Object({ location_id: Type.String({ pattern: '^[0-9]+$' }) }, { additionalProperties: false }))),
  },
  { additionalProperties: false },
);

function fieldOf(input: unknown): string | undefined {
  try {
    validateInput(schema, input);
    return undefined;
  } catch (error) {
    return (error as CommandInputError).field;
  }
}

describe('admin input validation', () => {
  it('writes JSON pointers the way users read them', () => {
    expect(fieldPath('')).toBe('(input)');
    expect(fieldPath('/targeting/0/geo/include/1/location_id')).toBe('targeting[0].geo.include[1].location_id');
  });

  it('refuses text no read model can store (a NUL, a lone surrogate) before the command reads anything, naming the field', () => {
    expect(fieldOf({ name: 'a\u0000b' })).toBe('name');
    expect(fieldOf({ name: 'ok', tags: ['fine', '\ud800'] })).toBe('tags[1]');
    expect(fieldOf({ name: 'ok 😀', tags: ['é'] })).toBeUndefined();
    expect(() => validateInput(schema, { name: '\u0000' })).toThrow(/contains a NUL character/);
  });

  it('names the field of the first problem', () => {
    expect(fieldOf({ name: 'ok' })).toBeUndefined();
    expect(fieldOf({})).toBe('name');
    expect(fieldOf({ name: 'x', count: -1 })).toBe('count');
    expect(fieldOf({ name: 'x', colour: 'red' })).toBe('colour');
    expect(fieldOf({ name: 'x', rules: [{ location_id: '1' }, { location_id: 'a' }] })).toBe('rules[1].location_id');
    expect(fieldOf({ name: 'x', rules: [{ location_id: '1', extra: 1 }] })).toBe('rules[0].extra');
  });

  it('says a missing field is required, and counts a length in characters (an emoji is one)', () => {
    const named = Type.Object({ email: Type.String(), name: Type.String({ maxLength: 3 }) });
    expect(() => validateInput(named, { name: 'n' })).toThrow('email: is required');
    expect(validateInput(named, { email: 'e', name: '😀😀😀' })).toEqual({ email: 'e', name: '😀😀😀' });
    expect(() => validateInput(named, { email: 'e', name: '😀😀😀😀' })).toThrow(/^name: /);
  });

  it("quotes a pattern as written: its case is its meaning", () => {
    const currency = Type.Object({ currency: Type.String({ pattern: '^[A-Z]{3}$' }) });
    expect(() => validateInput(currency, { currency: 'eur' })).toThrow("currency: expected string to match '^[A-Z]{3}$'");
    expect(() => validateInput(schema, null)).toThrow(/^\(input\): expected object/);
  });

  it('says what a described field takes instead of quoting its pattern', () => {
    const id = Type.Object({ application_id: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: "the application's id (canonical lowercase UUID)" }) });
    expect(() => validateInput(id, { application_id: '0190F5A2-7B3C-7D4E-8F60-1A2B3C4D5E6F' })).toThrow(
      'application_id: must be the application\'s id (canonical lowercase UUID); got "0190F5A2-7B3C-7D4E-8F60-1A2B3C4D5E6F"',
    );
  });

  it('turns command-line flags into typed input', () => {
    expect(inputFromFlags(schema, { name: 'n', count: '3', enabled: 'false', tags: 'a, b', rules: '[{"location_id":"2840"}]' })).toEqual({
      name: 'n', count: 3, enabled: false, tags: ['a', 'b'], rules: [{ location_id: '2840' }],
    });
    expect(() => inputFromFlags(schema, { rules: '[{' })).toThrow(/^rules: is not JSON: .+/);
    // A key given twice is refused, as --input and the admin API refuse it (JSON.parse kept the last).
    expect(() => inputFromFlags(schema, { rules: '[{"location_id":"2840","location_id":"2036"}]' })).toThrow('rules: gives "[0].location_id" twice; give each field once');
  });
});

describe('admin CLI', () => {
  // Asynchronous: a worker blocked in spawnSync answers nothing, and vitest reports its own calls
  // to it as timed out when the processes (an embedded database created) take a minute under load.
  const run = async (args: string[]) => {
    const dataDir = dataDirWithCluster('offer-ledger-admin-');
    try {
      return await runCli('services/admin/cli.ts', args, { DATA_DIR: dataDir }, 60_000);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };

  it('prints --help for a command with every field and exits 0', async () => {
    const result = await run(['catalog-entry:record', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--entry-id <value>');
    expect(result.stdout).toContain('(required)');
  });

  it('exits 2 naming the field of invalid input, and 0 with the appended event', async () => {
    const bad = await run(['catalog-entry:record', '--entry-id', 'a', '--name', 'x', '--amount', '1.5x', '--currency', 'USD']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^error: amount: /);
    const unknownCurrency = await run(['catalog-entry:record', '--entry-id', 'a', '--name', 'x', '--amount', '1.50', '--currency', 'XYZ']);
    expect(unknownCurrency.status).toBe(2);
    expect(unknownCurrency.stderr).toMatch(/^error: currency: is not an ISO 4217 currency code \("XYZ"\)/);
    const good = await run(['catalog-entry:record', '--entry-id', 'a', '--name', 'x', '--amount', '1.50', '--currency', 'USD']);
    expect(good.status).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ topic: 'catalog', offset: '0' });
  });

  it('exits 2 for an unknown command', async () => {
    expect((await run(['no-such:command'])).status).toBe(2);
  });
});
