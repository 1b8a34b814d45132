import { describe, expect, it } from 'vitest';
import { sessionConfig, sessionDefaults } from '../../platform/db/postgres.js';

const PINNED = '-c TimeZone=UTC -c DateStyle=ISO -c IntervalStyle=postgres';
const KEEPALIVES = '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3';

describe('sessionConfig', () => {
  it('pins UTC and ISO styles for a string without options, leaving the string as it is', () => {
    expect(sessionConfig('postgres://app:s%40cret@db.example:5433/ledger?sslmode=require')).toEqual({
      connectionString: 'postgres://app:s%40cret@db.example:5433/ledger?sslmode=require',
      options: `${KEEPALIVES} ${PINNED}`,
    });
  });

  it("moves the string's options into the config, ours after them so they win", () => {
    const config = sessionConfig('postgresql://app@db.example/ledger?application_name=api&options=-c%20timezone%3DAmerica%2FSt_Johns%20-c%20statement_timeout%3D5s');
    expect(config.options).toBe(`${KEEPALIVES} -c timezone=America/St_Johns -c statement_timeout=5s ${PINNED}`);
    const rest = new URL(config.connectionString);
    expect(rest.searchParams.has('options')).toBe(false);
    expect(rest.searchParams.get('application_name')).toBe('api');
    expect(`${rest.username}@${rest.host}${rest.pathname}`).toBe('app@db.example/ledger');
  });

  it('takes an empty options parameter as none', () => {
    expect(sessionConfig('postgres://db.example/ledger?options=').options).toBe(`${KEEPALIVES} ${PINNED}`);
  });

  it("gives the server a statement limit only with a query timeout, before the string's options (which may set another)", () => {
    expect(sessionDefaults(0)).toBe(KEEPALIVES);
    expect(sessionDefaults(undefined)).toBe(KEEPALIVES);
    expect(sessionConfig('postgres://db.example/ledger?options=-c%20statement_timeout%3D5s', sessionDefaults(60_000)).options).toBe(
      `${KEEPALIVES} -c statement_timeout=60000 -c statement_timeout=5s ${PINNED}`,
    );
  });
});
