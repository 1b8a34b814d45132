import { describe, expect, it } from 'vitest';
import { callerFolder, fromCallerFolder } from '../../platform/cli/caller-folder.js';

const npmRun = { INIT_CWD: '/home/ana/reports', npm_package_json: '/srv/offer-ledger/package.json' };

describe('callerFolder', () => {
  it('is the folder npm run was typed in, while the script runs in the package folder npm put it in', () => {
    expect(callerFolder(npmRun, '/srv/offer-ledger')).toBe('/home/ana/reports');
    expect(fromCallerFolder('june.csv', npmRun, '/srv/offer-ledger')).toBe('/home/ana/reports/june.csv');
    expect(fromCallerFolder('../june.csv', npmRun, '/srv/offer-ledger')).toBe('/home/ana/june.csv');
  });

  it('is the working folder for a process started another way, or started elsewhere by such a script (the variables inherited)', () => {
    expect(callerFolder({}, '/tmp/work')).toBe('/tmp/work');
    expect(callerFolder(npmRun, '/tmp/work')).toBe('/tmp/work');
    expect(fromCallerFolder('out.csv', npmRun, '/tmp/work')).toBe('/tmp/work/out.csv');
  });

  it('leaves an absolute path as it is', () => {
    expect(fromCallerFolder('/data/out.parquet', npmRun, '/srv/offer-ledger')).toBe('/data/out.parquet');
  });
});
