import { readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startProgram } from '../support/child-process.js';
import { freePort } from '../support/stack.js';
import { waitFor } from '../support/wait-for.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';

const dataDir = dataDirWithCluster('offer-ledger-npm-signals-');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// npm starts a script through `sh -c`; a process manager signals npm, npm signals that shell. Unless
// the shell has become the program (`exec`), the program outlives it and keeps running.
describe('npm scripts and process managers', () => {
  it('every script that starts a program execs it, so npm\'s signal reaches the program', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    const notExec = Object.entries(scripts).filter(([name, line]) => !['test', 'typecheck'].includes(name) && !line.startsWith('exec '));
    expect(notExec).toEqual([]);
  });

  it('SIGTERM to `npm start` stops the service process itself, not only npm', async () => {
    const port = await freePort();
    const npm = startProgram('npm', ['start'], {
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    });
    const listening = await npm.waitForLine((line) => line.includes('Server listening'), 120_000);
    const servicePid = (JSON.parse(listening) as { pid: number }).pid;
    expect(servicePid).not.toBe(npm.child.pid);
    expect(alive(servicePid)).toBe(true);

    await npm.stop('SIGTERM');
    // npm exits once its script has; the service is given the time a clean stop takes at most.
    await waitFor(() => !alive(servicePid), { timeoutMs: 30_000, intervalMs: 100, what: `the service (pid ${servicePid}) to exit after npm got SIGTERM` }).catch((error: Error) => {
      process.kill(servicePid, 'SIGKILL');
      throw error;
    });
    // The service stopped through its own handler, not by a signal's default action.
    expect(npm.output()).toMatch(/"signal":"SIGTERM".*"msg":"shutting down"/);
  }, 180_000);
});
