import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { postbackReasonsTable } from '../../commands/postbacks/reasons-table.js';
import { envExample } from '../../platform/config/env-example.js';
import { configurationTable } from '../../platform/config/readme-table.js';
import { GEO_LOAD_COMMAND } from '../../reference/locations/how-to-load.js';

const readme = readFileSync('README.md', 'utf8');

describe('README', () => {
  it('documents every setting exactly as the configuration module reads it', () => {
    expect(readme).toContain(configurationTable());
  });

  it('.env.example holds every setting at its default, as the configuration module reads it (npx tsx platform/config/env-example.ts > .env.example)', () => {
    expect(readFileSync('.env.example', 'utf8')).toBe(envExample());
  });

  it('lists every postback refusal exactly as the route answers it', () => {
    expect(readme).toContain(postbackReasonsTable());
  });

  it('names the test command that CI runs', () => {
    const ci = readFileSync('.ci/run', 'utf8');
    expect(readme).toContain('npm install && npm test');
    expect(ci).toMatch(/^npm test$/m);
  });

  it('states how to load a geo-target release in the one form the loader, start-up log and 503 answer use', () => {
    const forms = [...readme.matchAll(/npm run geo:load[^`|]*/g)].map((match) => match[0].trim());
    expect(forms.length).toBeGreaterThan(0);
    expect(new Set(forms)).toEqual(new Set([GEO_LOAD_COMMAND]));
  });

  it('sums payouts, in its analyst examples, of live conversions only and of one currency at a time', () => {
    // A sum over currencies is no amount, and test and sandbox conversions are counted but never billed.
    const sums = readme.split('\n').filter((line) => /sum\(payout_amount/.test(line));
    expect(sums.length).toBeGreaterThan(0);
    for (const line of sums) {
      expect(line).toContain("environment = 'live'");
      expect(line).toMatch(/payout_currency = '[A-Z]{3}'|GROUP BY[^"]*\b2\b|GROUP BY[^"]*payout_currency/);
    }
  });
});
