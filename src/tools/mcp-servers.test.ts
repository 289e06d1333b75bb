import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpServer, type TestMcpServer } from '../../tests/tools/start-mcp-server.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus/index.ts';
import { when } from '../testing/script-matchers.ts';
import { ToolsFileError } from './errors.ts';
import { McpServers, mcpServerAddress } from './mcp-servers.ts';
import { ToolRegistry } from './tool-registry.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

let server: TestMcpServer;

beforeAll(async () => {
  server = await startMcpServer();
}, TIMEOUTS.processStart);

afterAll(() => server?.kill());

const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

/** A loopback address that accepts MCP's first request and never answers it. */
async function hangingServer() {
  const open = new Set<ServerResponse>();
  const web = createServer((_req, res) => open.add(res));
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(web.address() as AddressInfo).port}/mcp`,
    close: () => {
      for (const res of open) res.destroy();
      web.closeAllConnections();
      return new Promise((resolve) => web.close(resolve));
    },
  };
}

describe("an MCP server's identity (issue 67, L5)", () => {
  it('is its whole address, query included: a gateway names its servers by query, and an allowance is one server’s', () => {
    expect(mcpServerAddress('https://gw.example/mcp?server=notes')).toBe('https://gw.example/mcp?server=notes');
    expect(mcpServerAddress('https://gw.example/mcp?server=evil')).not.toBe(mcpServerAddress('https://gw.example/mcp?server=notes'));
    expect(mcpServerAddress('https://user:pw@MCP.Example:443/notes/mcp#part')).toBe('https://mcp.example/notes/mcp');
  });

  it('shows a credential in the query by a digest: two keys are two servers, and neither is written out', () => {
    const one = mcpServerAddress('https://gw.example/mcp?server=notes&api_key=s3cr3t-one');
    const two = mcpServerAddress('https://gw.example/mcp?server=notes&api_key=s3cr3t-two');
    expect(one).toMatch(/^https:\/\/gw\.example\/mcp\?server=notes&api_key=~[0-9a-f]{8}$/);
    expect(one).not.toBe(two);
    expect(`${one}${two}`).not.toContain('s3cr3t');
    expect(mcpServerAddress('https://gw.example/mcp?token=abc&Session=def')).not.toMatch(/abc|def/);
  });
});

describe('MCP servers named in a tools file', () => {
  it('mcp(url) connects the server beside the file’s own tools; a reload keeps its tools; dropping the line removes them', async () => {
    const chat = NexusChat.withEngine(new ScriptedEngine([]));
    try {
      const names = await chat.evalTools(
        `mcp(${JSON.stringify(server.url)}, { label: 'Notes', confirm: false });\ntool('local_time', 'The time.', {}, () => 'noon');`,
      );
      expect(names).toEqual(['local_time']);
      const [status] = await chat.mcp.ready();
      expect(status).toMatchObject({ url: server.url, label: 'Notes', source: 'tools.js', phase: 'connected' });
      expect(chat.tools.names).toEqual(expect.arrayContaining(['local_time', 'add_numbers', 'delete_note']));
      // confirm: false trusts the server: its tool not marked read-only runs without asking.
      expect(chat.tools.get('delete_note')?.confirm).toBe(false);

      // The file is loaded again (edited): the server is still connected and its tools are back in the new set.
      await chat.evalTools(`mcp(${JSON.stringify(server.url)}, { label: 'Notes', confirm: false });\ntool('local_date', 'The date.', {}, () => 'today');`);
      expect(chat.tools.names).toEqual(expect.arrayContaining(['local_date', 'add_numbers']));
      expect(chat.tools.has('local_time')).toBe(false);

      await chat.evalTools(`tool('local_date', 'The date.', {}, () => 'today');`);
      expect(chat.tools.names).toEqual(['local_date']);
      expect(chat.mcp.list()).toEqual([]);
    } finally {
      await chat.dispose();
    }
  });

  it('a file with only mcp() lines is a valid file; a mistake in mcp() names the line and the valid options', async () => {
    const registry = new ToolRegistry();
    const { evalTools } = await import('./load-tools.ts');
    expect(await evalTools(registry, `mcp('http://127.0.0.1:1/mcp');`)).toEqual([]);
    expect(registry.mcpServers).toEqual([{ url: 'http://127.0.0.1:1/mcp' }]);

    const unknown = await evalTools(registry, `tool('a', 'A.', {}, () => 1);\nmcp('http://127.0.0.1:1/mcp', { token: 'x' });`).catch((e: Error) => e);
    expect(unknown).toBeInstanceOf(ToolsFileError);
    expect((unknown as ToolsFileError).line).toBe(2);
    expect((unknown as Error).message).toContain("unknown option 'token'; valid options are headers, confirm, label, callTimeoutMs, connectTimeoutMs");

    await expect(evalTools(registry, 'mcp(42);')).rejects.toThrow(/mcp\(\) needs the server's address as a string/);
    await expect(evalTools(registry, `mcp('http://127.0.0.1:1/mcp', { headers: { Authorization: 5 } });`)).rejects.toThrow(
      /headers must be an object of strings/,
    );
    // The broken file changed nothing: the earlier declaration stands.
    expect(registry.mcpServers).toEqual([{ url: 'http://127.0.0.1:1/mcp' }]);
  });
});

describe('many tools', () => {
  it(
    'ranks an MCP server’s tools like the others: with 50 listed, the answer is offered the one it needs',
    async () => {
      const big = await startMcpServer({ EXTRA_TOOLS: '43' });
      const engine = new ScriptedEngine([
        { when: when.userAsked('Add the numbers 4 and 5'), output: call('add_numbers', { a: 4, b: 5 }) },
        { when: when.afterResults(), output: 'It is 9.' },
      ]);
      const chat = NexusChat.withEngine(engine, { toolSelection: { semantic: false } }).tool('local_time', 'Get the local time.', {}, () => 'noon');
      try {
        chat.mcp.declare('settings', [{ url: big.url, trust: true }]);
        await chat.mcp.ready();
        expect(chat.tools.size).toBe(51);
        const answer = await chat.chat('Add the numbers 4 and 5');
        expect(answer.calls[0]).toMatchObject({ name: 'add_numbers', status: 'ok', result: '9' });
        const offered = chat.lastToolSelection?.offered ?? [];
        expect(offered).toContain('add_numbers');
        expect(offered.length).toBeLessThan(20);
        expect(chat.lastToolSelection?.reasons.add_numbers).toBe('lexical');
      } finally {
        await chat.dispose();
        await big.kill();
      }
    },
    TIMEOUTS.networkTest,
  );
});

describe('connection life', () => {
  it('a server that hangs never holds up the others, nor an answer with their tools', async () => {
    const hanging = await hangingServer();
    const engine = new ScriptedEngine([
      { when: when.userAsked('What is 20 plus 22?'), output: call('add_numbers', { a: 20, b: 22 }) },
      { when: when.afterResults(), output: 'It is 42.' },
    ]);
    const chat = NexusChat.withEngine(engine);
    try {
      chat.mcp.declare('settings', [
        { url: hanging.url, connectTimeoutMs: 60_000 },
        { url: server.url, trust: true },
      ]);
      await expect.poll(() => chat.mcp.list().map((s) => s.phase), { timeout: TIMEOUTS.reacts }).toEqual(['connecting', 'connected']);
      const answer = await chat.chat('What is 20 plus 22?');
      expect(answer.calls[0]).toMatchObject({ name: 'add_numbers', status: 'ok', result: '42' });
      expect(chat.mcp.list()[0]?.phase).toBe('connecting');
    } finally {
      await chat.dispose();
      await hanging.close();
    }
  });

  it(
    'a server that goes away is shown down and its tools are not offered; once it is back it reconnects by itself',
    async () => {
      const restartable = await startMcpServer();
      const registry = new ToolRegistry().tool('local_time', 'The time.', {}, () => 'noon');
      // Eight tries by itself must outlast a restart on a busy machine (issue 55: at most 400 ms apart they
      // were over in under 3 s, before a loaded machine had the server up again): sized from the process start.
      const servers = new McpServers(registry, { heartbeatMs: 100, backoff: { firstMs: 100, maxMs: TIMEOUTS.processStart / 16 } });
      const phases: string[] = [];
      servers.subscribe((list) => {
        const phase = list[0]?.phase;
        if (phase && phases.at(-1) !== phase) phases.push(phase);
      });
      try {
        servers.declare('settings', [{ url: restartable.url, trust: true }]);
        await servers.ready();
        expect(registry.has('add_numbers')).toBe(true);

        await restartable.kill();
        await expect.poll(() => servers.list()[0]?.phase, { timeout: TIMEOUTS.reacts }).toBe('down');
        expect(registry.names).toEqual(['local_time']);
        expect(servers.list()[0]).toMatchObject({ tools: [], error: expect.stringContaining('it stopped answering'), retryInMs: expect.any(Number) });

        await restartable.restart();
        await expect.poll(() => servers.list()[0]?.phase, { timeout: TIMEOUTS.works }).toBe('connected');
        expect(registry.has('add_numbers')).toBe(true);
        expect(await registry.runTool('add_numbers', { a: 1, b: 1 })).toMatchObject({ ok: true, result: '2' });
        expect(phases.slice(0, 4)).toEqual(['connecting', 'connected', 'down', 'connecting']);
        expect(phases.at(-1)).toBe('connected');
      } finally {
        await servers.close();
        await restartable.kill();
      }
    },
    TIMEOUTS.networkTest,
  );

  it(
    'a call that finds the server gone fails with a message naming it, and the server is marked down at once',
    async () => {
      const restartable = await startMcpServer();
      const registry = new ToolRegistry();
      // No heartbeat: the failed call is what notices.
      const servers = new McpServers(registry, { heartbeatMs: 0, backoff: { firstMs: 60_000, maxMs: 60_000 } });
      try {
        servers.declare('settings', [{ url: restartable.url, trust: true }]);
        await servers.ready();
        await restartable.kill();
        const outcome = await registry.runTool('add_numbers', { a: 1, b: 2 });
        expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('The MCP server notes cannot be reached') });
        expect(servers.list()[0]).toMatchObject({ phase: 'down', tools: [], retryInMs: 60_000 });
        expect(registry.size).toBe(0);
        // Retry now, instead of in a minute.
        await restartable.restart();
        servers.retry(restartable.url);
        await expect.poll(() => servers.list()[0]?.phase, { timeout: TIMEOUTS.reacts }).toBe('connected');
      } finally {
        await servers.close();
        await restartable.kill();
      }
    },
    TIMEOUTS.networkTest,
  );

  /** Servers whose retries are only scheduled, not run: the test sees each delay and runs the retry itself. */
  const serversOnHeldTimers = (backoff: { firstMs: number; maxMs: number }) => {
    const scheduled: number[] = [];
    const pending: (() => void)[] = [];
    const servers = new McpServers(new ToolRegistry(), {
      backoff,
      timers: {
        setTimeout: (run, ms) => {
          scheduled.push(ms);
          pending.push(run);
          return pending.length;
        },
        clearTimeout: () => undefined,
      },
    });
    return { servers, scheduled, pending };
  };

  it('a server that is not there keeps being tried with growing delays, capped', async () => {
    const { servers, scheduled, pending } = serversOnHeldTimers({ firstMs: 1000, maxMs: 4000 });
    try {
      servers.declare('settings', [{ url: 'http://127.0.0.1:9/mcp', connectTimeoutMs: 2000 }]);
      for (let attempt = 0; attempt < 4; attempt++) {
        await expect.poll(() => scheduled.length, { timeout: TIMEOUTS.reacts }).toBe(attempt + 1);
        expect(servers.list()[0]).toMatchObject({
          phase: 'down',
          error: expect.stringContaining('Could not connect to the MCP server at http://127.0.0.1:9/mcp'),
        });
        pending.shift()?.();
      }
      expect(scheduled).toEqual([1000, 2000, 4000, 4000]);
    } finally {
      await servers.close();
    }
  });

  it('stops trying by itself after eight times in a row, says so, and Retry starts again (issue 44)', async () => {
    const { servers, scheduled, pending } = serversOnHeldTimers({ firstMs: 10, maxMs: 40 });
    try {
      servers.declare('settings', [{ url: 'http://127.0.0.1:9/mcp', connectTimeoutMs: 2000 }]);
      for (let attempt = 0; attempt < 8; attempt++) {
        await expect.poll(() => scheduled.length, { timeout: TIMEOUTS.reacts }).toBe(attempt + 1);
        pending.shift()?.();
      }
      // The ninth failure schedules nothing: the server waits for Retry.
      await expect.poll(() => servers.list()[0]?.retryInMs === undefined && servers.list()[0]?.phase === 'down', { timeout: TIMEOUTS.reacts }).toBe(true);
      expect(scheduled).toHaveLength(8);
      servers.retry('http://127.0.0.1:9/mcp');
      await expect.poll(() => scheduled.length, { timeout: TIMEOUTS.reacts }).toBe(9);
      expect(scheduled.at(-1)).toBe(10);
    } finally {
      await servers.close();
    }
  });

  it('moves the connected tools into another registry (a chat loaded after the page started)', async () => {
    const first = new ToolRegistry();
    const servers = new McpServers(first);
    try {
      servers.declare('relay', [{ url: server.url }]);
      await servers.ready();
      const chat = NexusChat.withEngine(new ScriptedEngine([]));
      chat.useMcpServers(servers);
      expect(first.size).toBe(0);
      expect(chat.tools.has('add_numbers')).toBe(true);
      expect(servers.serverOf('add_numbers')).toMatchObject({ source: 'relay', label: 'notes' });
      await chat.dispose();
      // The page's servers outlive the chat.
      expect(servers.list()[0]?.phase).toBe('connected');

      // A server still connecting when the registry changes lands in the new one.
      const later = new ToolRegistry();
      servers.declare('settings', [{ url: `${server.url}?second` }]);
      servers.attach(later);
      await servers.ready();
      expect(later.names.filter((name) => name.startsWith('notes__'))).toContain('notes__add_numbers');
      expect(first.size).toBe(0);
    } finally {
      await servers.close();
    }
  });
});
