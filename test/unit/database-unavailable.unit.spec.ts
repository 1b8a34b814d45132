import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';

const failure = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a session cut', failure('Connection terminated unexpectedly')],
    ['a connection refused', failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a connection reset', failure('read ECONNRESET', 'ECONNRESET')],
    ['a session that could not be opened in time', failure('timeout exceeded when trying to connect')],
    ['a server shutting down', failure('terminating connection due to administrator command', '57P01')],
    ['a connection failure', failure('connection failure', '08006')],
    ['no connection slot left', failure('sorry, too many clients already', '53300')],
  ])('%s is the database unavailable', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a statement refused', failure('duplicate key value violates unique constraint', '23505')],
    ['a full disk of the file written', failure('ENOSPC: no space left on device, write', 'ENOSPC')],
    ['a failure of our own', new Error('cannot copy index of conversions')],
    ['something else thrown', 'Connection terminated'],
  ])('%s is not', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
