import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { html, SafeHtml } from '../../../../platform/http/html.js';

// Inline and small: no build step, nothing fetched from elsewhere. The policy allows this exact text only.
const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2228;background:#f6f7f9}
header{display:flex;justify-content:space-between;align-items:center;padding:.6rem 1.2rem;background:#1d2a3a;color:#fff}
header a{color:#fff}header h1{font-size:1.1rem;margin:0}header form{margin:0}
main{padding:1rem 1.2rem}
form.search{display:grid;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));gap:.5rem .8rem;align-items:end;background:#fff;padding:.8rem;border:1px solid #d8dde3}
label{display:flex;flex-direction:column;font-size:.8rem;color:#4a5563}
input,select,button{font:inherit;padding:.25rem .4rem}
.buttons{display:flex;gap:.6rem;align-items:center}
table{border-collapse:collapse;width:100%;background:#fff}
.table-scroll{overflow-x:auto;margin-top:.8rem}
th,td{border:1px solid #d8dde3;padding:.3rem .45rem;text-align:left;vertical-align:top}
th{background:#eef1f4;font-weight:600}
code,.id{font:12px ui-monospace,monospace;word-break:break-all}
.errors{background:#fdecea;border:1px solid #e0a39a;padding:.6rem .9rem;margin-bottom:.8rem}
.notice{background:#fff6dd;border:1px solid #e5c86b;padding:.5rem .9rem;margin:.8rem 0}
.decision{font-weight:600}.accepted{color:#17663a}.unmapped{color:#6b5d00}.already_recorded{color:#2b4f8a}.identity_conflict,.refused{color:#a12a1a}
nav.pages{display:flex;gap:1.2rem;margin:.8rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;background:#fff;padding:.8rem;border:1px solid #d8dde3}
dt{color:#4a5563}dd{margin:0}
.path{display:flex;flex-wrap:wrap;gap:.3rem;align-items:baseline}
.muted{color:#5f6874}
`;
const STYLE_SOURCE = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/** Headers of every admin page: a policy that runs no script and loads nothing from elsewhere, and no caching. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src ${STYLE_SOURCE}; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * A whole admin page; `signedIn` shows the sign-out button. `place` says in the window's title
 * which page of `title` this is (a postback, an error, the sign-in), so tabs and history tell them apart.
 */
export function layout(title: string, body: SafeHtml, options: { signedIn: boolean; place?: string }): SafeHtml {
  const signOut = options.signedIn ? html`<form method="post" action="/admin/logout"><button type="submit">Sign out</button></form>` : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>${options.place ? `${options.place} · ` : ''}${title} · offer-ledger admin</title><style>${new SafeHtml(CSS)}</style></head>
<body><header><h1><a href="/admin/postbacks">${title}</a></h1>${signOut}</header><main>${body}</main></body></html>`;
}

export function sendPage(reply: FastifyReply, status: number, page: SafeHtml) {
  return reply.status(status).headers(PAGE_HEADERS).send(page.text);
}
