import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNode } from '../support/cli.js';
import { freePort } from '../support/stack.js';

/** `npm run geo:download`'s flags: one that cannot name a release is refused before anything is fetched or written. */
const dir = mkdtempSync(join(tmpdir(), 'offer-ledger-geo-download-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const download = (args: string[], out = join(dir, 'out')) =>
  runNode(['--import', 'tsx', 'reference/locations/download.ts', '--dir', out, ...args], { env: process.env, timeoutMs: 60_000 });

describe('geo:download command line', () => {
  it.each([
    [['--date', 'yesterday'], /^error: --date: must be a release date, YYYY-MM-DD \(got "yesterday"\)$/],
    [['--url', 'not an address'], /^error: --url: must be an http or https address/],
    [['--url', 'file:///etc/geotargets-2026-08-12.csv'], /^error: --url: must be an http or https address/],
    [['--url', 'https://mirror.example.test/latest.zip'], /^error: --url: must end in a release's file name, geotargets-YYYY-MM-DD….csv or \.zip \(got "latest\.zip"\); the release date is read from it$/],
    [['--url', 'https://mirror.example.test/files/'], /^error: --url: must end in a release's file name, .* \(got ""\)/],
    [['--url', 'https://mirror.example.test/..%2Fgeotargets-2026-08-12.csv'], /^error: --url: must end in a release's file name, .* \(got "\.\.\/geotargets-2026-08-12\.csv"\)/],
    [['--url', 'https://mirror.example.test/geotargets-2026-08-12.html'], /^error: --url: must end in a release's file name, .* \(got "geotargets-2026-08-12\.html"\)/],
    [['--url', 'https://mirror.example.test/geotargets-2026-08-12.csv', '--date', '2025-07-15'], /^error: --date: is 2025-07-15, but --url names the release of 2026-08-12; give one of them$/],
    [['--dir', ''], /^error: --dir: is empty \(""\); give the folder to save the release in, or leave the flag out$/],
    [['--no-such-flag'], /^error: unknown option '--no-such-flag'$/],
    [['--timeout', '0'], /^error: --timeout: must be a number of seconds above 0 \(got "0"\)$/],
    [['--timeout', 'soon'], /^error: --timeout: must be a number of seconds above 0 \(got "soon"\)$/],
    [['--timeout', '99999999999'], /^error: --timeout: must be at most 2147483 seconds \(got 99999999999\)$/],
  ])('refuses %j with exit 2 in one line, writing nothing', async (args, message) => {
    const result = await download(args);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(message);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});

/**
 * A failed download, against a server of the test's own (no internet needed): one `error:` line and
 * the exit code of its kind (README, Commands), leaving no file behind.
 */
describe('geo:download from a server that does not give a release', () => {
  const RELEASE = '"Criteria ID","Name","Canonical Name","Parent ID","Country Code","Target Type","Status"\n2840,"United States","United States",,"US","Country","Active"\n';
  const answers: Record<string, [number, string]> = {
    '/missing/': [404, 'not here'],
    '/gone/': [410, 'gone'],
    '/broken/': [500, 'server error'],
    '/busy/': [503, 'busy'],
    '/forbidden/': [403, 'no'],
    '/portal/': [200, '<!doctype html><html><body>sign in to use this network</body></html>'],
    '/release/': [200, RELEASE],
  };
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      // Takes the request and never answers.
      if (request.url!.startsWith('/silent/')) return;
      // Starts the file and never sends the rest.
      if (request.url!.startsWith('/stalls/')) {
        response.writeHead(200, { 'content-type': 'text/plain' }).write(RELEASE.slice(0, 40));
        return;
      }
      const [status, body] = answers[request.url!.replace(/[^/]*$/, '')] ?? [404, ''];
      response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((closed) => server.close(closed));
  });

  it.each([
    ['/missing/', 2, /^error: --url: no release at http:\/\/127\.0\.0\.1:\d+\/missing\/geotargets-2026-08-12\.csv \(HTTP 404 Not Found\)/],
    ['/gone/', 2, /^error: --url: no release at .* \(HTTP 410 Gone\)/],
    ['/broken/', 4, /^error: cannot download .*: HTTP 500 Internal Server Error; the server cannot answer now: try again later$/],
    ['/busy/', 4, /^error: cannot download .*: HTTP 503 Service Unavailable; /],
    ['/forbidden/', 1, /^error: cannot download .*: HTTP 403 Forbidden; the server refuses this address: check --(date|url), or without internet access here, download it on another machine/],
    ['/portal/', 1, /^error: .* answered with a file that is not a geo-target release .*; nothing was saved$/],
  ] as const)('%s: exit %i, one line, no file left', async (path, status, line) => {
    const out = join(dir, `failed${path.replaceAll('/', '-')}`);
    const result = await download(['--url', `${base}${path}geotargets-2026-08-12.csv`], out);
    expect(result.status, result.stderr).toBe(status);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
    expect(result.stdout).toBe('');
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });

  it('a host that does not answer (a closed port): exit 4, naming the address and saying what to do offline', async () => {
    const url = `http://127.0.0.1:${await freePort()}/geotargets-2026-08-12.csv`;
    const result = await download(['--url', url], join(dir, 'unreachable'));
    expect(result.status, result.stderr).toBe(4);
    expect(result.stderr.trimEnd().split('\n')).toEqual([`error: cannot download ${url}: fetch failed: connect ECONNREFUSED ${new URL(url).host}; without internet access here, download it on another machine, copy it to this one, and set GEO_CATALOG_FILE to its path`]);
  });

  // The process's exit is the synchronization: with a short --timeout it ends on its own.
  it.each([
    ['/silent/', 'sent no answer'],
    ['/stalls/', 'sent nothing more of the file'],
  ])('a server that takes the connection and falls silent (%s): exit 4 after --timeout, naming the host and what to do, no file left', async (path, what) => {
    const out = join(dir, `silent${path.replaceAll('/', '-')}`);
    const url = `${base}${path}geotargets-2026-08-12.csv`;
    const result = await download(['--url', url, '--timeout', '0.5'], out);
    expect(result.status, result.stderr).toBe(4);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `error: cannot download ${url}: ${new URL(url).host} ${what} for 0.5 s (--timeout); try again later (or with a longer --timeout), or without internet access here, download it on another machine, copy it to this one, and set GEO_CATALOG_FILE to its path`,
    ]);
    expect(result.stdout).toBe('');
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });

  it('a release: saved under its name with its sha256 beside it, exit 0', async () => {
    const out = join(dir, 'saved');
    const result = await download(['--url', `${base}/release/geotargets-2026-08-12.csv`], out);
    expect(result.status, result.stderr).toBe(0);
    const sha256 = createHash('sha256').update(RELEASE).digest('hex');
    expect(readFileSync(join(out, 'geotargets-2026-08-12.csv'), 'utf8')).toBe(RELEASE);
    expect(readFileSync(join(out, 'geotargets-2026-08-12.csv.sha256'), 'utf8')).toBe(`${sha256}  geotargets-2026-08-12.csv\n`);
    expect(result.stdout).toContain(`GEO_CATALOG_SHA256=${sha256}`);
  });
});
