import escapeHtml from 'escape-html';
import { visibleText } from '../diagnostics/excerpt.js';

/** Markup that is already safe to send: built by `html`, never from a plain string. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = SafeHtml | string | number | bigint | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(visibleText(String(value)));
}

/**
 * Tagged template for server-rendered pages: every interpolated value is escaped (escape-html:
 * `& < > " '`), except markup made by `html` itself, and characters that could hide or reorder
 * what an operator reads (controls, bidi and other format characters: a partner's order id with
 * U+202E) are written as escapes such as `\u{202e}`. Values go into text or quoted attribute
 * values only, never into a tag name, an unquoted attribute, a URL scheme or a script.
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let text = strings[0]!;
  for (let i = 0; i < values.length; i += 1) text += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(text);
}

/** A path with its query string, each value encoded: for href and action attributes (then escaped by `html`). */
export function pathWithQuery(path: string, query: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(name, value);
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
