import type { TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { accountCommands } from '../../commands/accounts/index.js';
import { adminCommands } from '../../commands/index.js';
import { validateInput } from '../../commands/validate.js';
import { inputFromFlags } from '../../services/admin/cli-options.js';
import { buildCli } from '../../services/admin/cli.js';

describe('accounts admin commands on the command line', () => {
  it('are all registered, each with a summary and a description on every input property', () => {
    for (const command of accountCommands) {
      expect(adminCommands).toContain(command);
      expect(command.summary.length).toBeGreaterThan(10);
      expect(command.input.additionalProperties).toBe(false);
      for (const [property, schema] of Object.entries(command.input.properties)) {
        expect((schema as TSchema).description, `${command.name} ${property}`).toBeTruthy();
      }
    }
  });

  it('--help lists every flag of every command', () => {
    const cli = buildCli();
    for (const command of accountCommands) {
      const help = cli.commands.find((sub) => sub.name() === command.name)!.helpInformation();
      for (const property of Object.keys(command.input.properties)) expect(help).toContain(`--${property.replace(/_/g, '-')} <value>`);
    }
  });

  it('statuses and kinds are plain flag values, and a wrong one names its field', () => {
    const setStatus = accountCommands.find((command) => command.name === 'application:set-status')!;
    const id = '01900000-0000-7000-8000-000000000001';
    const input = inputFromFlags(setStatus.input, { application_id: id, status: 'live_limited' });
    expect(validateInput(setStatus.input, input)).toEqual({ application_id: id, status: 'live_limited' });
    expect(() => validateInput(setStatus.input, inputFromFlags(setStatus.input, { application_id: id, status: 'LIVE' }))).toThrow(/^status: /);
  });
});
