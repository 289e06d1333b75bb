import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus.ts';
import { when } from '../testing/script-matchers.ts';
import { connectMcp, McpConnectError, mcpResultText } from './mcp-tools.ts';
import { ToolRegistry } from './tool-registry.ts';

const SERVER = fileURLToPath(new URL('../../tests/tools/mcp-test-server.ts', import.meta.url));

let server: ChildProcess;
let url: string;
let output = '';

beforeAll(async () => {
  server = spawn(process.execPath, ['--import', 'tsx', SERVER], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  server.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout?.on('data', () => {
      const match = /LISTENING (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    server.once('exit', (code) => reject(new Error(`the MCP test server exited with ${code}`)));
  });
  url = `http://127.0.0.1:${port}/mcp`;
}, 60_000);

afterAll(() => {
  server?.kill();
});

const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe('tools from a real MCP server (the official SDK, Streamable HTTP, on loopback)', () => {
  it('lists the tools into the registry with their schemas; a tool not marked read-only asks for approval', async () => {
    const registry = new ToolRegistry();
    const connection = await connectMcp(url, registry);
    try {
      expect(connection.serverName).toBe('notes');
      expect([...connection.tools].sort()).toEqual(['add_numbers', 'broken', 'delete_note', 'describe_chart', 'enable_extra', 'slow_echo']);
      const add = registry.schemas.find((s) => s.function.name === 'add_numbers');
      expect(add?.function.parameters).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] });
      // Without an approver, a confirm tool is refused rather than run.
      const refused = await registry.runTool('delete_note', { id: 7 });
      expect(refused.ok).toBe(false);
      const approved = await registry.runTool('delete_note', { id: 7 }, { approve: () => true });
      expect(approved).toMatchObject({ ok: true, result: 'Note 7 deleted.' });
    } finally {
      await connection.close();
    }
    expect(registry.names).toEqual([]);
  });

  it('runs a call the model writes, validated first; an isError result comes back as the tool error; images are described', async () => {
    const engine = new ScriptedEngine([
      { when: when.userAsked('What is 2 plus 40?'), output: call('add_numbers', { a: '2', b: 40 }) },
      { when: when.afterResults(), output: 'It is 42.' },
    ]);
    const chat = NexusChat.withEngine(engine);
    const connection = await chat.connect(url);
    try {
      const answer = await chat.chat('What is 2 plus 40?');
      // The model wrote "2": coerced to the schema's number before it was sent (the server's schema would refuse a string).
      expect(answer.calls[0]).toMatchObject({ name: 'add_numbers', status: 'ok', result: '42' });
      const broken = await chat.tools.runTool('broken', {});
      expect(broken).toMatchObject({ ok: false, error: expect.stringContaining('the notes backend is down') });
      const chart = await chat.tools.runTool('describe_chart', {});
      expect(chart.ok && chart.result).toBe(
        'Sales rose 12% in March.\n[image: image/png, 0 KB, not shown to this text model]\n{"month":"March","growth":0.12}',
      );
    } finally {
      await connection.close();
    }
  });

  it('stopping the answer sends the MCP cancellation, and the server stops the call', async () => {
    const registry = new ToolRegistry();
    const connection = await connectMcp(url, registry);
    try {
      const controller = new AbortController();
      const running = registry.runTool('slow_echo', { text: 'hi' }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 200);
      const outcome = await running;
      expect(outcome.ok).toBe(false);
      await expect.poll(() => output, { timeout: 10_000 }).toContain('CANCELLED slow_echo');
    } finally {
      await connection.close();
    }
  });

  it('follows tools/list_changed: a tool the server adds joins the registry', async () => {
    const registry = new ToolRegistry();
    const changes: string[][] = [];
    const connection = await connectMcp(url, registry, { onToolsChanged: (tools) => changes.push([...tools]) });
    try {
      await registry.runTool('enable_extra', {});
      await expect.poll(() => registry.names.includes('extra_tool'), { timeout: 10_000 }).toBe(true);
      expect(changes.at(-1)).toContain('extra_tool');
    } finally {
      await connection.close();
    }
  });

  it('namespaces a tool whose name is already taken, and keeps the other', async () => {
    const registry = new ToolRegistry().tool('add_numbers', 'Mine', { x: 'number' }, () => 'mine');
    const connection = await connectMcp(url, registry);
    try {
      expect(connection.tools).toContain('notes__add_numbers');
      expect(registry.schemas.find((s) => s.function.name === 'add_numbers')?.function.description).toBe('Mine');
    } finally {
      await connection.close();
    }
  });

  it('names an address that is not an MCP server, within a bounded wait', async () => {
    await expect(connectMcp('http://127.0.0.1:9/mcp', new ToolRegistry(), { connectTimeoutMs: 2000 })).rejects.toThrow(McpConnectError);
    await expect(connectMcp('http://127.0.0.1:9/mcp', new ToolRegistry(), { connectTimeoutMs: 2000 })).rejects.toThrow(
      /Could not connect to the MCP server at http:\/\/127\.0\.0\.1:9\/mcp/,
    );
  });
});

describe('mcpResultText', () => {
  it('keeps text, describes what a text model cannot see, and adds structured content as JSON', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'resource', resource: { uri: 'file:///n.txt', text: 'note' } },
          { type: 'resource_link', uri: 'file:///x', name: 'x' },
        ],
        structuredContent: { n: 1 },
      }),
    ).toBe('a\n[resource file:///n.txt]\nnote\n[link: x file:///x]\n{"n":1}');
  });
});
