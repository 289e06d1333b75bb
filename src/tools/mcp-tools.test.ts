import '../../tests/proxy/helpers/no-egress.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpServer, type TestMcpServer } from '../../tests/tools/start-mcp-server.ts';
import { ScriptedEngine } from '../engine/scripted-engine.ts';
import { NexusChat } from '../nexus/index.ts';
import { when } from '../testing/script-matchers.ts';
import { connectMcp, McpConnectError, mcpResultText } from './mcp-tools.ts';
import { ToolRegistry } from './tool-registry.ts';

let server: TestMcpServer;
let url: string;

beforeAll(async () => {
  server = await startMcpServer();
  url = server.url;
}, TIMEOUTS.processStart);

afterAll(() => server?.kill());

const call = (name: string, args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

describe('tools from a real MCP server (the official SDK, Streamable HTTP, on loopback)', () => {
  it('lists the tools into the registry with their schemas; every tool of an untrusted server asks, whatever it says of itself', async () => {
    const registry = new ToolRegistry();
    const connection = await connectMcp(url, registry);
    try {
      // add_numbers says it is read-only: a claim of the server's, which decides nothing (issue 41).
      expect(registry.get('add_numbers')).toMatchObject({ confirm: true, readOnly: false });
      expect(connection.serverName).toBe('notes');
      expect([...connection.tools].sort()).toEqual(['add_numbers', 'broken', 'delete_note', 'describe_chart', 'enable_extra', 'huge_result', 'slow_echo']);
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
    // Trusted: this test is about the calls, not the approval.
    const connection = await chat.connect(url, { trust: true });
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
    const connection = await connectMcp(url, registry, { trust: true });
    try {
      const controller = new AbortController();
      const called = server.output().split('CALLED slow_echo').length;
      const running = registry.runTool('slow_echo', { text: 'hi' }, { signal: controller.signal });
      // Stopped once the server runs the call (a fixed delay could stop it before it arrived, on a busy machine).
      await expect.poll(() => server.output().split('CALLED slow_echo').length, { timeout: TIMEOUTS.networkTest }).toBeGreaterThan(called);
      controller.abort();
      const outcome = await running;
      expect(outcome.ok).toBe(false);
      await expect.poll(() => server.output(), { timeout: TIMEOUTS.networkTest }).toContain('CANCELLED slow_echo');
    } finally {
      await connection.close();
    }
  });

  it('follows tools/list_changed: a tool the server adds joins the registry', async () => {
    const registry = new ToolRegistry();
    const changes: string[][] = [];
    const connection = await connectMcp(url, registry, { trust: true, onToolsChanged: (tools) => changes.push([...tools]) });
    try {
      await registry.runTool('enable_extra', {});
      await expect.poll(() => registry.names.includes('extra_tool'), { timeout: TIMEOUTS.networkTest }).toBe(true);
      expect(changes.at(-1)).toContain('extra_tool');
    } finally {
      await connection.close();
    }
  });

  it(
    "a tool that changes what it says after it was listed is named changed, and only the user's trust skips asking (issue 41)",
    async () => {
      const rug = await startMcpServer({ RUG_PULL: '1' });
      const registry = new ToolRegistry();
      const connection = await connectMcp(rug.url, registry);
      try {
        expect(registry.get('read_note')).toMatchObject({ confirm: true, readOnly: false });
        expect(connection.changed).toEqual([]);
        await registry.runTool('rewrite_read_note', {}, { approve: () => true });
        await expect
          .poll(() => registry.get('read_note')?.schema.function.description, { timeout: TIMEOUTS.networkTest })
          .toBe('Email the text of a note to anyone.');
        expect(connection.changed).toEqual(['read_note']);
        expect(registry.get('read_note')?.confirm).toBe(true);
      } finally {
        await connection.close();
      }
      const trusted = await connectMcp(rug.url, registry, { trust: true });
      try {
        expect(registry.get('read_note')).toMatchObject({ confirm: false, readOnly: true });
      } finally {
        await trusted.close();
        rug.kill();
      }
    },
    TIMEOUTS.networkTest,
  );

  it(
    'bounds what a server can make the client hold: description (cut), schema depth, a schema its references amplify, result parts, re-listings (issues 41, 67, 69)',
    async () => {
      const hostile = await startMcpServer({ HOSTILE_TOOLS: '1' });
      const registry = new ToolRegistry();
      let listings = 0;
      const connection = await connectMcp(hostile.url, registry, { trust: true, onToolsChanged: () => listings++ });
      try {
        expect(connection.skipped).toEqual(
          expect.arrayContaining([
            { name: 'deep_schema', reason: 'its input schema nests deeper than 12 levels' },
            {
              name: 'amplified_schema',
              reason:
                "The parameters of tool 'amplified_schema' grow past 32,000 characters once their references are followed; define the tool with a smaller schema.",
            },
          ]),
        );
        expect(registry.names).not.toContain('deep_schema');
        // A page of description is cut, saying how long it was; the tool is kept (issue 69).
        const long = registry.schemas.find((schema) => schema.function.name === 'long_description')?.function.description ?? '';
        expect(long.length).toBeLessThan(2_100);
        expect(long).toMatch(/ … \[cut: the server's description is 4,400 characters\]$/);
        expect(connection.skipped.map((s) => s.name)).not.toContain('long_description');
        expect(registry.names).not.toContain('amplified_schema');
        const parts = await registry.runTool('many_parts', {});
        expect(parts.ok && String(parts.result).split('\n')).toHaveLength(65);
        expect(parts.ok && String(parts.result)).toContain('[36 more parts not shown]');
        await registry.runTool('announce_changes', {});
        await expect.poll(() => listings, { timeout: TIMEOUTS.networkTest }).toBe(6);
        // Thirty notices in a burst: six re-listings, the rest folded into one a minute later, and said so.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(listings).toBe(6);
        expect(connection.skipped.map((s) => s.name)).toContain('(re-listing)');
      } finally {
        await connection.close();
        hostile.kill();
      }
    },
    TIMEOUTS.networkTest,
  );

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

describe('bad input gets a bounded wait and a clear message', () => {
  /** A loopback HTTP server answering every request with `handle` (or never). */
  async function httpServer(handle: ((req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void) | 'hang') {
    const open = new Set<import('node:http').ServerResponse>();
    const web: Server = createServer((req, res) => {
      open.add(res);
      if (handle !== 'hang') handle(req, res);
    });
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

  it('a server that hangs on initialize: refused after the connect timeout, asked once', async () => {
    const web = await httpServer('hang');
    try {
      const failure = await connectMcp(web.url, new ToolRegistry(), { connectTimeoutMs: 300 }).catch((error: Error) => error);
      expect(failure).toBeInstanceOf(McpConnectError);
      expect((failure as Error).message).toMatch(/Could not connect to the MCP server at .*connecting took longer than 0\.3 s.*often ending in \/mcp/);
    } finally {
      await web.close();
    }
  });

  it('an address that answers, but not as an MCP server: the status is named', async () => {
    const web = await httpServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not found</body></html>');
    });
    try {
      await expect(connectMcp(web.url, new ToolRegistry(), { connectTimeoutMs: 2000 })).rejects.toThrow(/Could not connect to the MCP server at .*404/);
    } finally {
      await web.close();
    }
  });

  it('a listing of thousands of tools, page by page: the first 500 registered, the rest named as left out', async () => {
    const big = await startMcpServer({ EXTRA_TOOLS: '3000', PAGE_SIZE: '100', BAD_SCHEMA: '1' });
    const registry = new ToolRegistry();
    try {
      const connection = await connectMcp(big.url, registry);
      expect(connection.tools).toHaveLength(500);
      expect(registry.size).toBe(500);
      expect(connection.skipped.length).toBeGreaterThan(0);
      expect(connection.skipped[0]?.reason).toBe('more than 500 tools listed');
      await connection.close();
    } finally {
      await big.kill();
    }
  });

  it('a server whose protected-resource metadata names another server is refused for that, not blamed on the address (issue 53)', async () => {
    const wrong: Server = createServer((req, res) => {
      const port = (wrong.address() as AddressInfo).port;
      if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
        // The resource is another server's; the authorization server is this loopback one (nothing leaves the machine).
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ resource: 'https://evil.example.com/mcp', authorization_servers: [`http://127.0.0.1:${port}`] }));
        return;
      }
      if (req.url?.startsWith('/.well-known/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            issuer: `http://127.0.0.1:${port}`,
            authorization_endpoint: `http://127.0.0.1:${port}/authorize`,
            token_endpoint: `http://127.0.0.1:${port}/token`,
            response_types_supported: ['code'],
            code_challenge_methods_supported: ['S256'],
          }),
        );
        return;
      }
      res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"` });
      res.end();
    });
    await new Promise<void>((done) => wrong.listen(0, '127.0.0.1', () => done()));
    try {
      const address = `http://127.0.0.1:${(wrong.address() as AddressInfo).port}/mcp`;
      const failure = await connectMcp(address, new ToolRegistry(), {
        connectTimeoutMs: TIMEOUTS.networkTest / 2,
        oauth: { redirectUrl: 'http://localhost:3000/callback', authorize: async () => 'never' },
      }).catch((error: Error) => error);
      expect(failure).toBeInstanceOf(McpConnectError);
      expect((failure as Error).message).toContain(
        `its protected-resource metadata names another resource (https://evil.example.com/mcp) than this server (${address})`,
      );
      expect((failure as Error).message).toContain("The address is right; the server's sign-in set-up is not");
      expect((failure as Error).message).not.toContain('Check that the address');
    } finally {
      await new Promise((done) => wrong.close(done));
    }
  });

  it('a listing larger than the bound in bytes is refused while it arrives, naming the bound (issue 52)', async () => {
    const huge = await startMcpServer({ HUGE_LISTING: '60000' });
    try {
      const registry = new ToolRegistry();
      await expect(connectMcp(huge.url, registry, { trust: true })).rejects.toThrow(/could not be listed: .*larger than 8 MB/);
      expect(registry.names).toEqual([]);
    } finally {
      await huge.kill();
    }
  });

  it('a schema that is not an object is skipped and named; the other tools stay usable', async () => {
    const odd = await startMcpServer({ BAD_SCHEMA: '1' });
    const registry = new ToolRegistry();
    try {
      const connection = await connectMcp(odd.url, registry, { trust: true });
      expect(connection.skipped).toEqual([{ name: 'bad_schema', reason: 'its input schema is not an object (type "string")' }]);
      expect(registry.has('bad_schema')).toBe(false);
      expect(await registry.runTool('add_numbers', { a: 1, b: 2 })).toMatchObject({ ok: true, result: '3' });
      await connection.close();
    } finally {
      await odd.kill();
    }
  });

  it('a result of megabytes is cut, saying how long it was', async () => {
    const registry = new ToolRegistry();
    const connection = await connectMcp(url, registry, { trust: true });
    try {
      const outcome = await registry.runTool('huge_result', {});
      expect(outcome.ok).toBe(true);
      const text = outcome.ok ? String(outcome.result) : '';
      expect(text.length).toBeLessThan(100_100);
      expect(text.endsWith('[cut: 5,000,000 characters in all]')).toBe(true);
    } finally {
      await connection.close();
    }
  });

  it('a call past its timeout fails with a message the model can act on, and is cancelled on the server', async () => {
    const registry = new ToolRegistry();
    // Long enough for the call to reach the server on a busy machine (it then waits 30 s), so the server
    // has a call to cancel; the cancellation and the call are separate requests.
    const connection = await connectMcp(url, registry, { trust: true, callTimeoutMs: 3000 });
    const before = server.output().split('CANCELLED').length;
    try {
      const outcome = await registry.runTool('slow_echo', { text: 'late' });
      expect(outcome).toMatchObject({ ok: false, error: expect.stringContaining('slow_echo did not answer within 3 s; the call was cancelled.') });
      await expect.poll(() => server.output().split('CANCELLED').length, { timeout: TIMEOUTS.networkTest }).toBeGreaterThan(before);
      // The server is still there: the next call works.
      expect(await registry.runTool('add_numbers', { a: 2, b: 2 })).toMatchObject({ ok: true, result: '4' });
    } finally {
      await connection.close();
    }
  });
});

describe('schemas as servers publish them (issue 53): definitions and references followed, the whole schema checked', () => {
  let schemas: TestMcpServer;
  beforeAll(async () => {
    schemas = await startMcpServer({ SCHEMAS: '1' });
  }, TIMEOUTS.processStart);
  afterAll(() => schemas?.kill());

  /** Every `$ref` anywhere in a schema, for asserting none reaches the model where it could be written out. */
  const refsIn = (value: unknown): string[] => JSON.stringify(value).match(/"\$ref":"[^"]*"/g) ?? [];

  it("a pydantic/FastMCP tool is offered whole, and a call the model writes runs: coerced by the referenced types, accepted by the server's own check", async () => {
    const engine = new ScriptedEngine([
      {
        when: when.userAsked('Order two widgets for Ada in Paris, urgently.'),
        output: call('create_order', { customer: { name: 'Ada', address: { city: 'Paris' } }, items: [{ sku: 'widget', quantity: '2' }], priority: 'HIGH' }),
      },
      { when: when.afterResults(), output: 'Ordered.' },
    ]);
    const chat = NexusChat.withEngine(engine);
    const connection = await chat.connect(schemas.url, { trust: true });
    try {
      const offered = chat.tools.schemas.find((s) => s.function.name === 'create_order')?.function.parameters;
      // What the model reads: the nested models written out, nothing pointing at definitions it cannot see.
      expect(refsIn(offered)).toEqual([]);
      expect(offered).not.toHaveProperty('$defs');
      expect(offered).toMatchObject({
        required: ['customer', 'items'],
        properties: {
          customer: { type: 'object', required: ['name', 'address'], properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } },
          items: { type: 'array', items: { type: 'object', properties: { quantity: { type: 'integer', minimum: 1 } } } },
          priority: { enum: ['low', 'normal', 'high'], default: 'normal' },
        },
      });
      const answer = await chat.chat('Order two widgets for Ada in Paris, urgently.');
      expect(answer.text).toBe('Ordered.');
      expect(answer.calls[0]).toMatchObject({ name: 'create_order', status: 'ok' });
      // "2" became the integer 2 and "HIGH" the declared "high": the types came from the definitions.
      expect(JSON.parse(String(answer.calls[0]?.result))).toMatchObject({
        customer: { name: 'Ada', address: { city: 'Paris' } },
        items: [{ sku: 'widget', quantity: 2 }],
        priority: 'high',
      });
      // The whole schema is checked, nested minimum included; the model is told what to fix.
      const refused = await chat.tools.runTool('create_order', { customer: { name: 'Ada', address: { city: 'Paris' } }, items: [{ sku: 'w', quantity: 0 }] });
      expect(refused).toMatchObject({ ok: false, failure: 'invalid', error: expect.stringContaining('quantity') });
    } finally {
      await connection.close();
    }
  });

  it("the SDK's zod conversion (draft-7 definitions, references wrapped in allOf, a recursive tree): shared shapes written out, the tree checked to its leaves", async () => {
    const registry = new ToolRegistry();
    const connection = await connectMcp(schemas.url, registry, { trust: true });
    try {
      const parameters = registry.schemas.find((s) => s.function.name === 'draw_line')?.function.parameters;
      expect(parameters?.properties.from).toEqual({ type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] });
      expect(parameters?.properties.to).toEqual(parameters?.properties.from);
      // Only the recursion stays a reference, and the definition it needs stays beside it.
      expect(new Set(refsIn(parameters))).toEqual(new Set(['"$ref":"#/definitions/__schema0"']));
      expect(parameters).toHaveProperty(['definitions', '__schema0', 'properties', 'children', 'items', '$ref'], '#/definitions/__schema0');
      const tree = { name: 'root', children: [{ name: 'leaf', children: [{ name: 'deeper' }] }] };
      const drawn = await registry.runTool('draw_line', { from: { x: 0, y: '1' }, to: { x: 2, y: 3 }, tree });
      expect(drawn).toMatchObject({ ok: true });
      expect(JSON.parse(String(drawn.ok && drawn.result))).toEqual({ from: { x: 0, y: 1 }, to: { x: 2, y: 3 }, tree });
      const bad = await registry.runTool('draw_line', { from: { x: 0, y: 1 }, to: { x: 2, y: 3 }, tree: { name: 'root', children: [{ children: [] }] } });
      expect(bad).toMatchObject({ ok: false, failure: 'invalid', error: expect.stringContaining('name') });
    } finally {
      await connection.close();
    }
  });

  it('a reference that cannot be followed makes that tool unavailable with the reason; the rest are registered and an answer goes on', async () => {
    const engine = new ScriptedEngine([
      { when: when.userAsked('Draw a line from 0,0 to 1,1.'), output: call('draw_line', { from: { x: 0, y: 0 }, to: { x: 1, y: 1 } }) },
      { when: when.afterResults(), output: 'Drawn.' },
    ]);
    const chat = NexusChat.withEngine(engine);
    const connection = await chat.connect(schemas.url, { trust: true });
    try {
      expect(connection.skipped).toEqual([
        { name: 'missing_def', reason: expect.stringContaining("refer to '#/$defs/Missing', which their schema does not define; it defines '#/$defs/Item'") },
        { name: 'remote_ref', reason: expect.stringContaining("refer to 'https://schemas.invalid/item.json', outside their own schema") },
      ]);
      expect(chat.tools.has('missing_def')).toBe(false);
      const answer = await chat.chat('Draw a line from 0,0 to 1,1.');
      expect(answer).toMatchObject({ text: 'Drawn.', calls: [{ name: 'draw_line', status: 'ok' }] });
    } finally {
      await connection.close();
    }
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

  it('reads a text once where the structured content only repeats it, as server-filesystem sends a file (issue 69)', () => {
    const file = 'line one\nline two "quoted"\n';
    expect(mcpResultText({ content: [{ type: 'text', text: file }], structuredContent: { content: file } })).toBe(file);
    expect(mcpResultText({ content: [{ type: 'text', text: '[FILE] a.txt\n[DIR] b' }], structuredContent: { content: '[FILE] a.txt\n[DIR] b' } })).toBe(
      '[FILE] a.txt\n[DIR] b',
    );
    // What the text does not say is kept: another text, or a value of another kind.
    expect(mcpResultText({ content: [{ type: 'text', text: 'done' }], structuredContent: { status: 'done', id: 'x-17' } })).toContain('x-17');
    expect(mcpResultText({ content: [{ type: 'text', text: 'count 3' }], structuredContent: { count: 3 } })).toBe('count 3\n{"count":3}');
  });
});

describe('an MCP client servers can rely on (issue 42): what a server asks of the client, progress, resources, prompts', () => {
  let features: TestMcpServer;
  beforeAll(async () => {
    features = await startMcpServer({ CLIENT_FEATURES: '1' });
  }, TIMEOUTS.processStart);
  afterAll(() => features?.kill());

  it('answers elicitation with the form, its defaults filled in where the answer leaves them out; without a handler it is not offered', async () => {
    const registry = new ToolRegistry();
    const asked: unknown[] = [];
    const connection = await connectMcp(features.url, registry, {
      trust: true,
      elicit: async (request) => {
        asked.push(request);
        return { action: 'accept', content: { name: 'Grace' } };
      },
    });
    try {
      expect(await registry.runTool('ask_name', {})).toMatchObject({ ok: true, result: 'hello Grace (36)' });
      expect(asked).toEqual([expect.objectContaining({ mode: 'form', message: 'Who are you?' })]);
      // URL mode: the page to open and its id reach the handler; the server hears the user's answer.
      expect(await registry.runTool('pay_bill', {})).toMatchObject({ ok: true, result: 'payment: accept' });
      expect(asked[1]).toEqual({
        mode: 'url',
        message: "Pay the bill on the bank's page.",
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/pay\?bill=7$/),
        elicitationId: 'pay-7',
      });
    } finally {
      await connection.close();
    }
    // Without a handler, elicitation is not offered: the server learns it cannot ask, and nothing is answered for the user.
    const registryWithout = new ToolRegistry();
    const without = await connectMcp(features.url, registryWithout, { trust: true });
    try {
      expect(await registryWithout.runTool('ask_name', {})).toMatchObject({ ok: false, error: expect.stringMatching(/elicitation/i) });
    } finally {
      await without.close();
    }
  });

  it('answers sampling through the caller and declares roots; a call reports progress, which renews its timeout, and log messages arrive at the level asked', async () => {
    const registry = new ToolRegistry();
    const progress: string[] = [];
    const logs: string[] = [];
    const connection = await connectMcp(features.url, registry, {
      trust: true,
      sample: async (request) => ({
        role: 'assistant',
        content: { type: 'text', text: `short (${request.maxTokens} tokens at most)` },
        model: 'tiny-tools-qwen3',
        stopReason: 'endTurn',
      }),
      roots: [{ uri: 'file:///work/project', name: 'project' }],
      // Shorter than the whole call (about 1.2 s), longer than the gap between its reports.
      callTimeoutMs: 1000,
      onProgress: (tool, p) => progress.push(`${tool} ${p.progress}/${p.total} ${p.message}`),
      logLevel: 'warning',
      onLog: (entry) => logs.push(`${entry.level} ${entry.logger}: ${String(entry.data)}`),
    });
    try {
      expect(await registry.runTool('summarize', { text: 'a long text' })).toMatchObject({
        ok: true,
        result: 'summary: short (40 tokens at most) (by tiny-tools-qwen3, endTurn)',
      });
      expect(await registry.runTool('list_roots', {})).toMatchObject({ ok: true, result: 'file:///work/project' });
      expect(await registry.runTool('count_up', {})).toMatchObject({ ok: true, result: 'counted to 3' });
      expect(progress).toEqual(['count_up 1/3 step 1', 'count_up 2/3 step 2', 'count_up 3/3 step 3']);
      await expect.poll(() => logs, { timeout: TIMEOUTS.networkTest }).toEqual(['warning counter: counted 3']);
    } finally {
      await connection.close();
    }
  });

  it('answers sampling with the model in the tab while the answer waits on the tool that asks: its template, the stop sequence, preferences declined by name', async () => {
    const samplingPrompts: string[] = [];
    const engine = new ScriptedEngine([
      {
        when: when.userAsked('Summarize the meeting notes with the notes server.'),
        output: call('summarize', { text: 'the meeting ran long', stop: 'END', prefer: 'claude-3-sonnet' }),
      },
      {
        when: (prompt) => {
          if (!prompt.includes('Summarize: the meeting ran long')) return false;
          samplingPrompts.push(prompt);
          return true;
        },
        output: 'The meeting overran. END and more the server did not want',
      },
      { when: when.afterResults(), output: 'The notes server summarized it.' },
    ]);
    const chat = NexusChat.withEngine(engine);
    const reports: unknown[] = [];
    const connection = await chat.connect(features.url, {
      trust: true,
      sample: async (request) => {
        const { report, ...answer } = await chat.sampleForMcp(request);
        reports.push(report);
        return answer;
      },
    });
    try {
      const answer = await chat.chat('Summarize the meeting notes with the notes server.');
      expect(answer.calls[0]).toMatchObject({ name: 'summarize', status: 'ok', result: 'summary: The meeting overran. (by scripted, stopSequence)' });
      expect(answer.text).toBe('The notes server summarized it.');
      // Rendered through the model's own template (the scripted engine's Qwen3 ChatML), as a conversation of its own: no tools, no earlier turns.
      expect(samplingPrompts).toHaveLength(1);
      expect(samplingPrompts[0]).toContain('<|im_start|>user\nSummarize: the meeting ran long<|im_end|>');
      expect(samplingPrompts[0]).not.toContain('<tools>');
      expect(samplingPrompts[0]).not.toContain('meeting notes with the notes server');
      expect(reports).toEqual([
        { honoured: ['maxTokens 40', 'stopSequences'], declined: ['modelPreferences (hints claude-3-sonnet): answered by the model in this tab'] },
      ]);
    } finally {
      await connection.close();
    }
  });

  it('gives structured content once, keeps a part meant for the user from the model, skips a task-only tool of a server that runs no tasks, by name, and reads resources and prompts', async () => {
    const registry = new ToolRegistry();
    const forUser: string[] = [];
    const connection = await connectMcp(features.url, registry, { trust: true, onUserContent: (tool, texts) => forUser.push(`${tool}: ${texts.join(' | ')}`) });
    try {
      expect(await registry.runTool('weather_structured', {})).toMatchObject({
        ok: true,
        result: '{"city":"Oslo","temperature_c":4}',
        // Kept with the call for the page (the answer's steps), never for the model.
        details: { shown: ['Shown to the user only.'] },
      });
      // What the model does not read, the user is shown: handed to the caller with the tool's name.
      expect(forUser).toEqual(['weather_structured: Shown to the user only.']);
      expect(connection.skipped).toContainEqual({
        name: 'task_only',
        reason: 'it runs only as an MCP task, and the server does not say it runs tools/call as one',
      });
      expect(connection.tools).not.toContain('task_only');
      // A resource link in a result is something the model can follow: the server has resources, so a reader is registered.
      expect(await registry.runTool('find_note', {})).toMatchObject({ ok: true, result: '[link: note note://1]' });
      expect(connection.tools).toContain('read_resource');
      expect(await registry.runTool('read_resource', { uri: 'note://1' })).toMatchObject({ ok: true, result: '[resource note://1]\nBuy milk and eggs.' });
      expect(await connection.resources()).toEqual([{ uri: 'note://1', name: 'note', mimeType: 'text/plain', description: 'A note.' }]);
      expect(await connection.prompts()).toEqual([expect.objectContaining({ name: 'greet', description: 'Greets someone.' })]);
      expect(await connection.getPrompt('greet', { name: 'Lin' })).toEqual([{ role: 'user', content: 'Say hello to Lin.' }]);
    } finally {
      await connection.close();
    }
  });

  it('ends the session on the server when closed (an HTTP DELETE), not only its own side', async () => {
    const before = features.output().split('SESSION CLOSED').length;
    const connection = await connectMcp(features.url, new ToolRegistry(), { trust: true });
    await connection.close();
    await expect.poll(() => features.output().split('SESSION CLOSED').length, { timeout: TIMEOUTS.networkTest }).toBeGreaterThan(before);
  });

  it("signs in with OAuth where the server asks (the SDK's own authorization server): registration, PKCE, state, the code handed back, tokens kept", async () => {
    const guarded = await startMcpServer({ OAUTH: '1' });
    const kept = new Map<string, unknown>();
    const asked: URL[] = [];
    const oauth = {
      redirectUrl: 'http://127.0.0.1:9/callback',
      // What a sign-in window does: follow the authorization page to its redirect, and read the code.
      authorize: async (page: URL) => {
        asked.push(page);
        const response = await fetch(page, { redirect: 'manual' });
        const back = new URL(response.headers.get('location') ?? '');
        expect(back.searchParams.get('state')).toBe(page.searchParams.get('state'));
        return back.searchParams.get('code') ?? '';
      },
      store: {
        get: (key: string) => kept.get(key),
        set: (key: string, value: unknown) => void kept.set(key, value),
        delete: (key: string) => void kept.delete(key),
      },
    };
    try {
      const registry = new ToolRegistry();
      const connection = await connectMcp(guarded.url, registry, { trust: true, oauth });
      expect(await registry.runTool('add_numbers', { a: 2, b: 3 })).toMatchObject({ ok: true, result: '5' });
      await connection.close();
      expect(asked).toHaveLength(1);
      expect(asked[0]?.searchParams.get('code_challenge_method')).toBe('S256');
      expect(asked[0]?.searchParams.get('state')).toMatch(/^[0-9a-f]{32}$/);
      expect(asked[0]?.searchParams.get('scope')).toBe('mcp:tools');
      // Signed in once: the kept token connects again without asking.
      const again = await connectMcp(guarded.url, new ToolRegistry(), { trust: true, oauth });
      await again.close();
      expect(asked).toHaveLength(1);
      // A sign-in the user refuses: named, nothing connected.
      await expect(
        connectMcp(guarded.url, new ToolRegistry(), {
          oauth: { ...oauth, store: undefined, authorize: () => Promise.reject(new Error('the user closed the window')) },
        }),
      ).rejects.toThrow(/Signing in to the MCP server at .* did not finish: the user closed the window/);
    } finally {
      await guarded.kill();
    }
  });

  it('says a server asks for authorization, and how to give it, where it answers 401', async () => {
    const guarded = await startMcpServer({ REQUIRE_TOKEN: 'secret' });
    try {
      await expect(connectMcp(guarded.url, new ToolRegistry())).rejects.toThrow(
        /asks for authorization \(HTTP 401\): give its token in headers .* or sign in with the oauth option/,
      );
    } finally {
      await guarded.kill();
    }
  });
});
