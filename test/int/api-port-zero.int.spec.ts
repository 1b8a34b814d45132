import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../support/child-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'api-port-zero-'));
let service: ServiceProcess | undefined;
afterAll(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

// With PORT=0 the system picks the port after the configuration is read: the default LINK_BASE
// (this API's own address) must name that port, or every card's link would point at port 0.
it('PORT=0 without LINK_BASE: the links of this service are those of the port the API listens on', async () => {
  const token = 'port-zero-admin-token-0123456789';
  service = startServiceProcess('services/api/main.ts', { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ADMIN_TOKEN: token });
  const listening = await service.waitForLog((entry) => String(entry.msg).startsWith('Server listening at'));
  const base = String(listening.msg).replace('Server listening at ', '');
  expect(base).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
  const command = async (name: string, input: Record<string, unknown>) => {
    const response = await fetch(`${base}/admin/commands/${name}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Record<string, string> }).data;
  };

  const { developer_id } = await command('developer:register', { name: 'Port zero', email: 'zero@port.test' });
  const { application_id } = await command('application:register', { developer_id, name: 'app', status: 'live' });
  const { key } = await command('api-key:issue', { application_id, kind: 'live' });
  const { partner_id } = await command('partner:configure', { name: 'Shop' });
  const { offer_id } = await command('offer:upsert', { partner_id, kind: 'local', status: 'active', destination_url: 'https://shop.example/' });
  const { url } = await command('link:register', { offer_id, shape: 'short_code', code: 'ZeroPt12', target_url: 'https://shop.example/l', application_id });
  expect(url).toBe(`${base}/l/ZeroPt12`);

  const info = async (link: string) => {
    const response = await fetch(`${base}/v1/offers/info?offerurl=${encodeURIComponent(link)}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, body: (await response.json()) as { code: string; message: string } };
  };
  // The link is this service's (the offer behind it has no public details yet), not a foreign one.
  expect(await info(url!)).toMatchObject({ status: 404, body: { code: 'NOT_FOUND', message: 'no current public offer is behind this link' } });
  const atPortZero = await info('http://127.0.0.1:0/l/ZeroPt12');
  expect(atPortZero.status).toBe(400);
  expect(atPortZero.body.message).toMatch(/not a tracked link of this service/);
});
