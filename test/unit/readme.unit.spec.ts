import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationTable } from '../../platform/config/readme-table.js';

const readme = readFileSync('README.md', 'utf8');

describe('README', () => {
  it('documents every setting exactly as the configuration module reads it', () => {
    expect(readme).toContain(configurationTable());
  });

  it('names the test command that CI runs', () => {
    const ci = readFileSync('.ci/run', 'utf8');
    expect(readme).toContain('npm install && npm test');
    expect(ci).toMatch(/^npm test$/m);
  });
});
