import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownerLost } from '../../services/admin/command-gateway.js';
import { ownerAddress, requestOwner } from '../../platform/data-dir/owner-client.js';
import { ExitCode } from '../../platform/startup.js';

/**
 * An admin command sent to the service that holds DATA_DIR, when the service's socket fails under
 * it (real sockets): the CLI says whether the command can have been applied, exit 4.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'owner-lost-'));
let server: Server | undefined;
afterAll(() => {
  server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const send = () => requestOwner(dataDir, 'POST', '/commands/offer:upsert', { body: { partner_id: 'p' }, token: 'token' }).then(
  () => undefined,
  (error: unknown) => ownerLost('offer:upsert', error),
);

describe('an admin command whose service stops answering', () => {
  it('nobody listening: not run, run it again', async () => {
    const failed = await send();
    expect(failed?.exitCode).toBe(ExitCode.unavailable);
    expect(failed?.message).toMatch(/^the service that holds DATA_DIR is not answering on its socket \(.+\); offer:upsert was not run: run it again$/);
  });

  it('the connection dropped once the command was sent (a killed service): may have been applied, look first', async () => {
    server = createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => server!.listen(ownerAddress(dataDir), resolve));
    const failed = await send();
    expect(failed?.exitCode).toBe(ExitCode.unavailable);
    expect(failed?.message).toContain('stopped answering before it replied (socket hang up); offer:upsert may or may not have been applied: look');
  });
});
