// Where an MCP server's authorization server sends the user back: the code (or the error) goes to the
// Nexus Chat tab that asked, matched by `state`, over a channel only pages of this origin hear.
const query = new URLSearchParams(location.search);
const message = {
  state: query.get('state') ?? '',
  code: query.get('code') ?? undefined,
  // The authorization server names itself (RFC 9207): the tab checks it is the one it asked.
  iss: query.get('iss') ?? undefined,
  error: query.get('error') ?? undefined,
  description: query.get('error_description') ?? undefined,
};
const channel = new BroadcastChannel('nexus-mcp-oauth');
channel.postMessage(message);
channel.close();
// The code is spent: it leaves the address bar and the history.
history.replaceState(null, '', location.pathname);
const status = document.getElementById('status');
if (status) status.textContent = message.code ? 'Signed in. You can close this window.' : `The sign-in did not finish${message.error ? ` (${message.error})` : ''}. You can close this window.`;
setTimeout(() => window.close(), 300);
