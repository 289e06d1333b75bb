/**
 * Figures for issue 27, against the official SDK's own server on loopback (a child process, 50 tools
 * and the test server's own): connect and list time through `connectMcp` against the SDK's client
 * alone (connect + listTools); a call through the registry (validation, result to text) against a
 * direct `client.callTool`, median of 50 each, alternating; the time from a stopped call to the
 * server seeing the cancellation, median of 5.
 *
 * Run: `npx tsx tests/bench/mcp-bench.ts`
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectMcp } from '../../src/tools/mcp-tools.ts';
import { ToolRegistry } from '../../src/tools/tool-registry.ts';

const SERVER = fileURLToPath(new URL('../tools/mcp-test-server.ts', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { PATH: process.env.PATH ?? '', EXTRA_TOOLS: '43' },
});
let output = '';
const cancelled: number[] = [];
child.stdout?.on('data', (chunk: Buffer) => {
  output += chunk.toString();
  if (chunk.toString().includes('CANCELLED')) cancelled.push(performance.now());
});
const port = await new Promise<number>((resolve) => {
  child.stdout?.on('data', () => {
    const match = /LISTENING (\d+)/.exec(output);
    if (match) resolve(Number(match[1]));
  });
});
const url = `http://127.0.0.1:${port}/mcp`;
try {
  const ours: number[] = [];
  const direct: number[] = [];
  let tools = 0;
  for (let run = 0; run < 5; run++) {
    let started = performance.now();
    const registry = new ToolRegistry();
    const connection = await connectMcp(url, registry);
    ours.push(performance.now() - started);
    tools = connection.tools.length;
    await connection.close();
    started = performance.now();
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await client.listTools();
    direct.push(performance.now() - started);
    await client.close();
  }
  console.log(
    `connect and list ${tools} tools: connectMcp ${median(ours).toFixed(1)} ms, SDK client alone ${median(direct).toFixed(1)} ms (ratio ${(median(ours) / median(direct)).toFixed(2)})`,
  );

  const registry = new ToolRegistry();
  // Trusted: the bench measures calls, not the approval every untrusted server's tool asks for.
  const connection = await connectMcp(url, registry, { trust: true });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const viaRegistry: number[] = [];
  const viaClient: number[] = [];
  for (let i = 0; i < 50; i++) {
    let started = performance.now();
    await registry.runTool('add_numbers', { a: i, b: 1 });
    viaRegistry.push(performance.now() - started);
    started = performance.now();
    await client.callTool({ name: 'add_numbers', arguments: { a: i, b: 1 } });
    viaClient.push(performance.now() - started);
  }
  console.log(
    `a call: through the registry ${median(viaRegistry).toFixed(2)} ms, direct callTool ${median(viaClient).toFixed(2)} ms (overhead ${(median(viaRegistry) - median(viaClient)).toFixed(2)} ms, ratio ${(median(viaRegistry) / median(viaClient)).toFixed(2)})`,
  );

  const latency: number[] = [];
  for (let i = 0; i < 5; i++) {
    const controller = new AbortController();
    const seen = cancelled.length;
    const running = registry.runTool('slow_echo', { text: 'x' }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = performance.now();
    controller.abort();
    await running;
    for (let wait = 0; wait < 200 && cancelled.length === seen; wait++) await new Promise((resolve) => setTimeout(resolve, 5));
    latency.push((cancelled[seen] ?? Number.NaN) - stopped);
  }
  console.log(`stop to the server's cancellation: median ${median(latency).toFixed(1)} ms (${latency.map((x) => x.toFixed(1)).join(', ')})`);
  await client.close();
  await connection.close();
} finally {
  child.kill();
}
