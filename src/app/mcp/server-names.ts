import type { McpServerStatus } from '../../internal.ts';

/**
 * A server's name as the page shows it: its label, with its host where another server has the same
 * label (two servers called "shop" are told apart by where they are).
 */
export function serverName(server: Pick<McpServerStatus, 'label' | 'url'>, all: readonly Pick<McpServerStatus, 'label' | 'url'>[]): string {
  if (all.filter((other) => other.label === server.label).length < 2) return server.label;
  try {
    const url = new URL(server.url);
    return `${server.label} (${url.host}${url.pathname === '/mcp' ? '' : url.pathname}${url.search})`;
  } catch {
    return `${server.label} (${server.url})`;
  }
}
