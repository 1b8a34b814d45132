import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { settings } from '../../platform/config/config.js';

/**
 * docker-compose.yml and the image cannot run here (no Docker engine), so their promises are
 * checked as text: the production shape a newcomer gets must be the one the README describes.
 */
interface Service {
  command?: string[];
  healthcheck?: { test: string[] };
  environment?: Record<string, string>;
  volumes?: string[];
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as { services: Record<string, Service> };
const dockerfile = readFileSync('ops/Dockerfile', 'utf8');
const ci = readFileSync('.ci/run', 'utf8');

describe('docker-compose.yml and the image', () => {
  it('runs the API without projectors beside a projector service, each as node itself (the stop signal reaches it) with its npm script\'s flags', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    const asRun = (script: string) => scripts[script]!.replace(/^exec /, '').split(' ');
    expect(compose.services.projector?.command).toEqual(asRun('projector'));
    expect(compose.services.api?.command).toEqual(asRun('start'));
    expect(dockerfile).toContain(`CMD ${JSON.stringify(asRun('start')).replaceAll(',', ', ')}`);
    // Both report readiness on their own ports (the API's PORT, the projector's PROJECTOR_PORT).
    expect(compose.services.api?.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${compose.services.api?.environment?.PORT}/readyz`);
    expect(compose.services.projector?.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${compose.services.projector?.environment?.PROJECTOR_PORT}/readyz`);
    expect(compose.services.api?.environment?.PROJECTORS).toBe('separate');
    expect(settings.projectors.parse('separate')).toBe('separate');
  });

  it('mounts the catalog folder read-only where GEO_CATALOG_FILE points', () => {
    expect(compose.services.api?.volumes).toContainEqual(expect.stringMatching(/^\$\{GEO_CATALOG_DIR:-\.\/catalog\}:\/catalog:ro$/));
    expect(compose.services.api?.environment).toHaveProperty('GEO_CATALOG_FILE');
  });

  it('names only settings the service reads', () => {
    const known = new Set(Object.values(settings).map((setting) => setting.name));
    for (const service of ['api', 'projector']) {
      for (const name of Object.keys(compose.services[service]?.environment ?? {})) expect(known, `${service}: ${name}`).toContain(name);
    }
  });

  it('builds on a supported Node LTS and installs the way CI does', () => {
    const node = /^FROM node:(\d+)-/m.exec(dockerfile);
    // Node 20 left support in April 2026; 22 and 24 are the supported LTS lines.
    expect(Number(node?.[1])).toBeGreaterThanOrEqual(22);
    expect(Number(node?.[1]) % 2).toBe(0);
    expect(ci).toMatch(/npm install --no-audit --no-fund/);
    expect(dockerfile).toMatch(/RUN npm install --omit=dev --no-audit --no-fund/);
    expect(dockerfile).not.toMatch(/^RUN npm ci/m);
  });
});
