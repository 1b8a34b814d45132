import { settings } from './config.js';

/** The configuration table of README.md, rendered from the settings themselves. */
export function configurationTable(): string {
  const rows = Object.values(settings).map(
    (setting) => `| \`${setting.name}\` | ${setting.defaultText === undefined ? 'unset' : `\`${setting.defaultText}\``} | ${setting.doc} |`,
  );
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${configurationTable()}\n`);
