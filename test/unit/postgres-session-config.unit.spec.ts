import { describe, expect, it } from 'vitest';
import { sessionConfig } from '../../platform/db/postgres.js';

const PINNED = '-c TimeZone=UTC -c DateStyle=ISO -c IntervalStyle=postgres';

describe('sessionConfig', () => {
  it('pins UTC and ISO styles for a string without options, leaving the string as it is', () => {
    expect(sessionConfig('postgres://app:s%40cret@db.example:5433/ledger?sslmode=require')).toEqual({
      connectionString: 'postgres://app:s%40cret@db.example:5433/ledger?sslmode=require',
      options: PINNED,
    });
  });

  it("moves the string's options into the config, ours after them so they win", () => {
    const config = sessionConfig('postgresql://app@db.example/ledger?application_name=api&options=-c%20timezone%3DAmerica%2FSt_Johns%20-c%20statement_timeout%3D5s');
    expect(config.options).toBe(`-c timezone=America/St_Johns -c statement_timeout=5s ${PINNED}`);
    const rest = new URL(config.connectionString);
    expect(rest.searchParams.has('options')).toBe(false);
    expect(rest.searchParams.get('application_name')).toBe('api');
    expect(`${rest.username}@${rest.host}${rest.pathname}`).toBe('app@db.example/ledger');
  });

  it('takes an empty options parameter as none', () => {
    expect(sessionConfig('postgres://db.example/ledger?options=').options).toBe(PINNED);
  });
});
