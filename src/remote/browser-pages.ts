// The few pages a member's browser sees on this server: the approval of an MCP client before the
// workspace sign-in, and the errors that cannot go back to a client (unknown client or redirect,
// expired or foreign sign-in). Plain HTML, no script.
import { escapeHtml as esc } from '../net/http-io.js';

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1F3A5F;line-height:1.45}
button{margin:.8rem .5rem 0 0;padding:.5rem 1rem}.warn{color:#8a4b00}code{overflow-wrap:anywhere}</style>
</head><body><h1>${esc(title)}</h1>${body}</body></html>`;
}

export function errorPage(title: string, text: string): string {
  return page(title, `<p>${esc(text)}</p>`);
}

/** Where the client will receive the answer, as the member should read it. */
function destination(redirectUri: string): { where: string; warning?: string } {
  const u = new URL(redirectUri);
  if (u.protocol === 'https:') return { where: u.host };
  if (u.protocol === 'http:') {
    return {
      where: `${u.hostname} (this computer)`,
      warning: 'The answer goes to a program on this computer. Continue only if you started this connection yourself, just now.',
    };
  }
  return {
    where: `the ${u.protocol.slice(0, -1)}: application`,
    warning: 'The answer goes to an application installed on this computer. Continue only if you started this connection yourself, just now.',
  };
}

interface ApprovalView {
  txn: string;
  clientName: string;
  /** For clients named by a metadata document: the host that vouches for the name. */
  clientHost?: string;
  redirectUri: string;
  scope: 'read' | 'write';
  serverHost: string;
  workspaceHost: string;
}

/**
 * The MCP specification asks a server that signs members in at another authorization server under
 * one client_id of its own to get the member's approval for each client first (the confused deputy):
 * otherwise a workspace that remembers a past consent could hand a stranger's client a code silently.
 */
export function approvalPage(v: ApprovalView): string {
  const d = destination(v.redirectUri);
  const asks = v.scope === 'write' ? 'read, and possibly write,' : 'read';
  return page(
    'Connect an assistant to your workspace?',
    `<p><strong>${esc(v.clientName)}</strong>${v.clientHost ? ` (from <code>${esc(v.clientHost)}</code>)` : ''} asks to ${asks} your Workspace Consulting workspace
through <code>${esc(v.serverHost)}</code>.</p>
<p>Next you sign in at <code>${esc(v.workspaceHost)}</code> and choose read only, or read and write. The answer is then sent to
<strong>${esc(d.where)}</strong>.</p>
${d.warning ? `<p class="warn">${esc(d.warning)}</p>` : ''}
<form method="post" action="/oauth/authorize"><input type="hidden" name="txn" value="${esc(v.txn)}">
<button type="submit" name="decision" value="allow">Continue to sign in</button>
<button type="submit" name="decision" value="deny">Cancel</button></form>`,
  );
}
