import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpConnection } from '../../src/tools/mcp-tools.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';
import { TIMEOUTS } from '../timeouts.ts';
import { type BridgedServer, bridgeStdio } from './stdio-bridge.ts';

/**
 * The MCP servers people install from npm (the reference servers, as `npx` runs them), each bridged from stdio to
 * Streamable HTTP on loopback and reached through `connectMcp` as a page reaches a server through a gateway
 * (issue 69, item 4): every tool taken whole (its schema as a reference dereferencer writes it out), one call
 * each of the ones a chat uses, no result read twice by the model, a long description cut and not its tool dropped.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const serverScript = (name: string) => join(root, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js');

/**
 * A schema's shape, written out: every property path with its type (through `properties`, `items` and the
 * combinators), and which are required. Two schemas that write the same data out the same way have one shape,
 * whatever their `$ref`s, `$defs` or keyword order.
 */
function shape(schema: unknown, path = '', into: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return into;
  const node = schema as Record<string, unknown>;
  if (node.type !== undefined) into.push(`${path || '(root)'}: ${JSON.stringify(node.type)}`);
  if (Array.isArray(node.required) && node.required.length > 0) into.push(`${path || '(root)'} requires ${[...node.required].sort().join(', ')}`);
  for (const [key, child] of Object.entries((node.properties as Record<string, unknown>) ?? {})) shape(child, `${path}.${key}`, into);
  if (node.items) shape(node.items, `${path}[]`, into);
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    const branches = Array.isArray(node[keyword]) ? (node[keyword] as unknown[]) : [];
    for (const [i, branch] of branches.entries()) shape(branch, `${path}<${keyword} ${i}>`, into);
  }
  return into.sort();
}

/** The calls each server gets, as a model would write them, and what its answer must say. */
const CALLS: Record<string, { tool: string; args: Record<string, unknown>; says: RegExp }[]> = {
  'server-everything': [
    { tool: 'echo', args: { message: 'hello' }, says: /hello/ },
    { tool: 'get-sum', args: { a: 2, b: 40 }, says: /42/ },
    { tool: 'get-structured-content', args: { location: 'New York' }, says: /temperature/ },
    // A tool that runs only as a task (SEP-1686), which asks the user mid-way: its form arrives on tasks/result's stream.
    {
      tool: 'simulate-research-query',
      args: { topic: 'tide pools', ambiguous: true },
      says: /Research Report: tide pools \(the marine kind\)[\s\S]*input_required/,
    },
  ],
  'server-filesystem': [
    { tool: 'list_allowed_directories', args: {}, says: /fs-root/ },
    { tool: 'write_file', args: { path: 'NOTE', content: 'the answer is 42' }, says: /wrote/i },
    { tool: 'list_directory', args: { path: '.' }, says: /\[FILE\] NOTE/ },
  ],
  'server-memory': [
    { tool: 'create_entities', args: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] }, says: /Ada/ },
    { tool: 'search_nodes', args: { query: 'Ada' }, says: /first program/ },
  ],
  'server-sequential-thinking': [
    {
      tool: 'sequentialthinking',
      args: { thought: 'First, the question.', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false },
      says: /thoughtNumber/,
    },
  ],
};

describe('the MCP servers people install from npm, through connectMcp', () => {
  const folder = mkdtempSync(join(tmpdir(), 'nexus-fs-root-'));
  const servers = new Map<string, { bridge: BridgedServer; connection: McpConnection; registry: ToolRegistry }>();
  /** The messages of the forms the servers asked the user to fill in. */
  const forms: string[] = [];
  /** Where set, a form stops the call (Stop pressed) instead of being answered. */
  let stopInstead: AbortController | undefined;

  beforeAll(async () => {
    for (const [name, args] of [
      ['server-everything', ['stdio']],
      ['server-filesystem', [folder]],
      ['server-memory', []],
      ['server-sequential-thinking', []],
    ] as const) {
      // The memory server keeps its graph in a file: this run's own, not one in its package folder.
      const bridge = await bridgeStdio(process.execPath, [serverScript(name), ...args], {
        cwd: folder,
        env: { MEMORY_FILE_PATH: join(folder, 'memory.jsonl') },
      });
      const registry = new ToolRegistry();
      const connection = await connectMcp(bridge.url, registry, {
        trust: true,
        connectTimeoutMs: TIMEOUTS.processStart,
        // What a user would answer to a server's form: here, the research tool's question in the middle of its task.
        elicit: async (request) => {
          forms.push(request.message);
          // The user stops the answer instead of answering (the Stop test below).
          if (stopInstead) {
            stopInstead.abort();
            return { action: 'cancel' };
          }
          return { action: 'accept', content: { interpretation: 'the marine kind' } };
        },
      });
      servers.set(name, { bridge, connection, registry });
    }
  }, TIMEOUTS.processStart * 2);

  afterAll(async () => {
    for (const { connection, bridge } of servers.values()) {
      await connection.close().catch(() => undefined);
      await bridge.close();
    }
    rmSync(folder, { recursive: true, force: true });
  });

  it('takes every tool, the one that runs only as a task among them, each schema as a reference dereferencer writes it out', async () => {
    let compared = 0;
    for (const [name, { connection, registry }] of servers) {
      expect(connection.skipped, name).toEqual([]);
      for (const tool of connection.tools.filter((t) => t !== 'read_resource')) {
        const listed = connection.definition(tool);
        const reference = await $RefParser.dereference(structuredClone(listed?.inputSchema ?? {}) as never);
        expect(shape(registry.get(tool)?.parameters), `${name} ${tool}`).toEqual(shape(reference));
        compared++;
      }
    }
    // 15 + 14 + 9 + 1 tools, every one compared: server-everything's 12, its task-only research tool, and the two
    // it offers a client that answers forms (form and URL elicitation).
    expect(compared).toBe(39);
  });

  it('runs one call of each kind a chat makes, and every answer says what it should', async () => {
    for (const [name, calls] of Object.entries(CALLS)) {
      const { registry } = servers.get(name) ?? {};
      for (const { tool, args, says } of calls) {
        const outcome = await registry?.runTool(tool, args);
        expect(outcome, `${name} ${tool}`).toMatchObject({ ok: true });
        expect(String(outcome?.ok && outcome.result), `${name} ${tool}`).toMatch(says);
      }
    }
    expect(forms).toEqual([expect.stringContaining('"tide pools" could have multiple interpretations')]);
  });

  it('Stop cancels a task on the server (tasks/cancel with its id)', async () => {
    const { registry, bridge } = servers.get('server-everything') ?? {};
    stopInstead = new AbortController();
    const outcome = await registry?.runTool('simulate-research-query', { topic: 'rust', ambiguous: true }, { signal: stopInstead.signal });
    stopInstead = undefined;
    expect(outcome).toMatchObject({ ok: false, failure: 'aborted' });
    const sent = (bridge?.received ?? []) as { method?: string; params?: { taskId?: string } }[];
    const cancelled = () => sent.filter((message) => message.method === 'tasks/cancel');
    // Sent as the call stops, not awaited by it.
    await expect.poll(() => cancelled().length).toBe(1);
    // The task cancelled is the last one this client created.
    const asked = sent.filter((message) => message.method === 'tasks/result').map((message) => message.params?.taskId);
    expect(cancelled()[0]?.params?.taskId).toBe(asked.at(-1));
  });

  it('a file read reaches the model once, though the server sends it again as structured content', async () => {
    writeFileSync(join(folder, 'POEM'), 'Tyger Tyger, burning bright');
    const { registry } = servers.get('server-filesystem') ?? {};
    for (const tool of ['read_text_file', 'read_file']) {
      const outcome = await registry?.runTool(tool, { path: join(folder, 'POEM') });
      const text = String(outcome?.ok && outcome.result);
      expect(text.split('burning bright').length - 1, `${tool}: ${text}`).toBe(1);
    }
  });

  it('a description past 2,000 characters is cut, saying how long it was, and its tool is kept', () => {
    const { registry, connection } = servers.get('server-sequential-thinking') ?? {};
    expect(connection?.definition('sequentialthinking')?.description?.length).toBeGreaterThan(2_000);
    expect(registry?.get('sequentialthinking')?.description).toMatch(/… \[cut: the server's description is [\d,]+ characters\]$/);
  });
});
