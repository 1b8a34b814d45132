import { POSTBACK_REASONS } from './rejections.js';

/** The README's table of every postback refusal, rendered from the catalogue the route answers with. */
export function postbackReasonsTable(): string {
  const rows = Object.entries(POSTBACK_REASONS)
    .sort(([, a], [, b]) => a.status - b.status)
    .map(([reason, { status, code, retryable, when }]) => `| ${status} | \`${code}\` | \`${reason}\` | ${retryable} | ${when} |`);
  return ['| HTTP | `code` | `extra.reason` | `retryable` | when |', '|---|---|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${postbackReasonsTable()}\n`);
