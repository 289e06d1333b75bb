/**
 * The path one answer takes through the source: which files of `src/` run while a scripted Qwen3
 * answers a question with one tool call (in-process, so the worker's hop is not counted), in the
 * order they run, and how often the path comes back to a file it had left. A figure of structure,
 * not of speed: the files are those V8's precise coverage saw a function of run during the answer;
 * the order is read from a stack trace taken at every promise the answer creates (each `await`),
 * the innermost frame under `src/` naming the file, so synchronous calls in between are not in it.
 *
 * Run: `npx tsx tests/bench/answer-path.ts`
 */
import { createHook } from 'node:async_hooks';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScriptedEngine } from '../../src/engine/scripted-engine.ts';
import { NexusChat } from '../../src/nexus/index.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>';

/** The innermost file under src/ on the current stack, or undefined. */
function currentSourceFile(): string | undefined {
  const stack = new Error().stack ?? '';
  for (const line of stack.split('\n').slice(2)) {
    const match = /\(?(?:file:\/\/)?(\/[^():]+\.ts):\d+:\d+\)?$/.exec(line.trim());
    if (match?.[1]?.startsWith(SRC)) return relative(SRC, match[1]);
  }
  return undefined;
}

const engine = new ScriptedEngine([
  { when: (prompt) => prompt.includes('Weather in Chennai?<|im_end|>\n<|im_start|>assistant\n') && !prompt.includes('tool_response'), output: CALL },
  { when: (prompt) => prompt.includes('"temperature_c":31.2'), output: 'It is 31.2°C in Chennai.' },
]);
const chat = NexusChat.withEngine(engine).tool('get_weather', 'Get current weather for a city', { city: 'string' }, ({ city }) => ({
  city,
  temperature_c: 31.2,
}));

const trace: string[] = [];
const hook = createHook({
  init(_id, type) {
    if (type !== 'PROMISE') return;
    const file = currentSourceFile();
    if (file && file !== trace.at(-1)) trace.push(file);
  },
});
const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await inspector.post('Profiler.takePreciseCoverage'); // counts from here on
hook.enable();
const answer = await chat.chat('Weather in Chennai?');
hook.disable();
const { result } = await inspector.post('Profiler.takePreciseCoverage');
const ran = result
  .filter((script) => script.url.startsWith(`file://${SRC}`) && script.functions.some((f) => f.functionName !== '' && (f.ranges[0]?.count ?? 0) > 0))
  .map((script) => relative(SRC, fileURLToPath(script.url)))
  .sort();

const files = new Set(trace);
const returns = trace.filter((file, i) => trace.indexOf(file) < i).length;
console.log(`answer: ${JSON.stringify(answer.text)} (${answer.calls.length} call)`);
console.log(`files that ran: ${ran.length} (${ran.join(', ')})`);
console.log(`files on the awaited path: ${files.size}`);
console.log(`transitions between files: ${trace.length - 1}; returns to a file already left: ${returns}`);
console.log(`path: ${trace.join(' → ')}`);
