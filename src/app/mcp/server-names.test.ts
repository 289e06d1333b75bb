import { describe, expect, it } from 'vitest';
import { serverName } from './server-names.ts';

describe('MCP server names (issue 44)', () => {
  it('tells two servers of one name apart by where they are, and leaves a unique name alone', () => {
    const shopA = { label: 'shop', url: 'http://127.0.0.1:3001/mcp' };
    const shopB = { label: 'shop', url: 'https://shop.example.org/api/mcp' };
    const notes = { label: 'notes', url: 'http://127.0.0.1:3002/mcp' };
    const all = [shopA, shopB, notes];
    expect(serverName(shopA, all)).toBe('shop (127.0.0.1:3001)');
    expect(serverName(shopB, all)).toBe('shop (shop.example.org/api/mcp)');
    expect(serverName(notes, all)).toBe('notes');
    expect(serverName(shopA, [shopA, notes])).toBe('shop');
  });
});
