import { settings } from './config.js';

const WIDTH = 100;

/** Words of `text` as comment lines of at most WIDTH characters. */
function commentLines(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length > 1 && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/** A default as a value a line can hold: one the README writes as a description ("(empty)", "http://{HOST}:{PORT}/l") is left empty, which means the same. */
const literalDefault = (text: string | undefined) => (text === undefined || text === '(empty)' || text.includes('{') ? '' : text);

/**
 * `.env.example`, rendered from the settings themselves: every setting with what it means, each
 * commented out at its default (a remark never shares a value's line, so uncommenting one gives
 * a line a shell and Docker Compose read alike).
 */
export function envExample(): string {
  const head = [
    '# Copy to .env (git-ignored): Docker Compose reads it; for npm scripts export it (set -a; . ./.env; set +a).',
    '# Every setting, commented out at its default: uncomment a line to set it. With no backend set the',
    '# service runs on the embedded default. Rendered by platform/config/env-example.ts (a test compares).',
  ];
  const blocks = Object.values(settings).map((setting) => [...commentLines(setting.doc), `# ${setting.name}=${literalDefault(setting.defaultText)}`].join('\n'));
  return `${[head.join('\n'), ...blocks].join('\n\n')}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(envExample());
