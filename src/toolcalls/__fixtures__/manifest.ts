import type { RejectReason, ToolCall } from '../types.ts';

/** The tools every fixture's conversation offered, where a fixture says it was parsed with tools. */
const DEMO_TOOLS = ['get_weather', 'get_time', 'web_search', 'fetch_page_content_recursive', 'brave_search'] as const;

/** Which of the six formats (or which kind of trouble) a fixture exercises. */
type FixtureGroup = 'hermes' | 'xml-function' | 'mistral' | 'llama' | 'fenced' | 'openai' | 'sloppy' | 'negative';

/**
 * One model output and what must come out of it. Written here in the shape each family emits
 * (following the model cards, chat templates and other projects' parser tests), not recorded from
 * a run of the model: `model` names the family whose output it reproduces.
 */
export interface Fixture {
  /** File name under `__fixtures__/`. */
  file: string;
  /** What it exercises. */
  group: FixtureGroup;
  /** The model family whose output it reproduces. */
  model: string;
  /** Parse with these tools registered (otherwise with none given). */
  tools?: readonly string[];
  /** The prompt opened a thinking block, so the output begins mid-thought (see `StreamFilterOptions`). */
  startsInThinking?: boolean;
  /** The calls `parseToolCalls` must return. */
  calls: ToolCall[];
  /** The text `parseToolCalls` must return. */
  text: string;
  /** Dropped attempts, compared without their `source`. */
  rejected?: { name: string | null; reason: RejectReason }[];
}

const gw = (city: string, extra: Record<string, unknown> = {}): ToolCall => ({ name: 'get_weather', arguments: { city, ...extra } });
const gt = (city: string): ToolCall => ({ name: 'get_time', arguments: { city } });

/** Expected results, one per fixture file. */
export const FIXTURES: readonly Fixture[] = [
  // Format 1: Qwen / Hermes <tool_call> JSON
  { file: 'hermes-qwen3-single.txt', group: 'hermes', model: 'Qwen3-0.6B', calls: [gw('Paris')], text: '' },
  { file: 'hermes-two-calls.txt', group: 'hermes', model: 'Qwen2.5-0.5B-Instruct', calls: [gw('Paris'), gt('Tokyo')], text: '' },
  { file: 'hermes-inline.txt', group: 'hermes', model: 'Qwen2.5-0.5B-Instruct', calls: [gw('Chennai')], text: "I'll look that up for you." },
  { file: 'hermes-prose-before.txt', group: 'hermes', model: 'Qwen3-0.6B', calls: [gw('Berlin', { unit: 'celsius' })], text: 'Let me check the current weather in Berlin for you.' },
  { file: 'hermes-qwen3-thinking.txt', group: 'hermes', model: 'Qwen3-0.6B (thinking on)', calls: [gw('Tokyo'), gt('Tokyo')], text: '' },
  {
    file: 'hermes-openai-shape.txt',
    group: 'hermes',
    model: 'Qwen2.5-0.5B-Instruct',
    tools: DEMO_TOOLS,
    calls: [{ name: 'web_search', arguments: { query: 'rust jobs berlin', time_range: 'week' } }],
    text: '',
  },

  // Format 2: XML function form
  { file: 'xml-function-web-search.txt', group: 'xml-function', model: 'Qwen3-Coder (seed 000)', calls: [{ name: 'web_search', arguments: { query: 'rust jobs', time_range: 'week' } }], text: '' },
  {
    file: 'xml-function-typed.txt',
    group: 'xml-function',
    model: 'Qwen3-Coder',
    calls: [
      {
        name: 'web_search',
        arguments: { query: 'senior rust engineer remote', max_results: 5, safe: true, queries: ['rust jobs remote', 'rust inference jobs'], note: 'null pointer, 0123' },
      },
    ],
    text: 'I will search for recent postings.',
  },
  {
    file: 'xml-function-bare.txt',
    group: 'xml-function',
    model: 'Qwen3-Coder',
    tools: DEMO_TOOLS,
    calls: [{ name: 'fetch_page_content_recursive', arguments: { url: 'https://example.com/careers' } }],
    text: 'Reading the page now.',
  },

  // Format 3: Mistral
  { file: 'mistral-array.txt', group: 'mistral', model: 'Mistral-7B-Instruct-v0.3', calls: [gw('Paris')], text: '' },
  { file: 'mistral-args.txt', group: 'mistral', model: 'Ministral-8B / Mistral-Small (v11 tokenizer)', calls: [gw('Paris')], text: '' },
  { file: 'mistral-two-args.txt', group: 'mistral', model: 'Mistral-Small (v11 tokenizer)', tools: DEMO_TOOLS, calls: [gw('Paris'), gt('Paris')], text: '' },
  { file: 'mistral-object.txt', group: 'mistral', model: 'Mistral-7B-Instruct-v0.3', calls: [{ name: 'web_search', arguments: { query: 'mistral 7b release date' } }], text: '' },

  // Format 4: Llama
  { file: 'llama-bare.txt', group: 'llama', model: 'Llama-3.2-1B-Instruct', calls: [gw('Paris')], text: '' },
  { file: 'llama-bare-type-function.txt', group: 'llama', model: 'Llama-3.2-3B-Instruct', calls: [gw('San Francisco', { unit: 'fahrenheit' })], text: '' },
  { file: 'llama-python-tag.txt', group: 'llama', model: 'Llama-3.1-8B-Instruct', calls: [gw('Paris')], text: '' },
  {
    file: 'llama-python-call.txt',
    group: 'llama',
    model: 'Llama-3.1-8B-Instruct (built-in tools)',
    tools: DEMO_TOOLS,
    calls: [{ name: 'brave_search', arguments: { query: 'current weather in Menlo Park, California' } }],
    text: '',
  },
  { file: 'llama-bare-array.txt', group: 'llama', model: 'Llama-3.2-3B-Instruct', calls: [gw('Paris'), gt('Paris')], text: '' },

  // Format 5: fenced
  { file: 'fenced-json.txt', group: 'fenced', model: 'SmolLM2-1.7B-Instruct', calls: [gw('Paris')], text: "Sure! Here's the tool call to get the weather:" },
  { file: 'fenced-untagged.txt', group: 'fenced', model: 'Phi-3.5-mini-instruct', calls: [gt('Sydney')], text: 'To answer this I need the current time.' },
  { file: 'fenced-tool-code.txt', group: 'fenced', model: 'Gemma-2-2B-it', calls: [gw('London')], text: '' },
  {
    file: 'fenced-tool-call.txt',
    group: 'fenced',
    model: 'Qwen2.5-0.5B-Instruct',
    calls: [{ name: 'web_search', arguments: { query: 'WebGPU browser support' } }],
    text: 'I will summarise the results once they arrive.',
  },

  // Format 6: OpenAI-shaped
  { file: 'openai-tool-calls.txt', group: 'openai', model: 'Qwen2.5-0.5B-Instruct (API transcript style)', calls: [gw('Paris')], text: '' },
  { file: 'openai-function.txt', group: 'openai', model: 'Phi-3.5-mini-instruct', tools: DEMO_TOOLS, calls: [gt('Chennai')], text: '' },

  // Sloppy output that must still be read
  { file: 'hermes-unterminated.txt', group: 'sloppy', model: 'Qwen3-0.6B q4', calls: [gw('Paris')], text: '' },
  { file: 'hermes-no-close-tag.txt', group: 'sloppy', model: 'Qwen3-0.6B q4 (primed, stopped at </tool_call>)', calls: [gw('Chennai')], text: '' },
  { file: 'hermes-missing-close-then-next.txt', group: 'sloppy', model: 'Qwen2.5-0.5B-Instruct q8', calls: [gw('Paris'), gt('Paris')], text: '' },
  { file: 'hermes-trailing-prose.txt', group: 'sloppy', model: 'Qwen3-0.6B q4', calls: [gw('Paris')], text: 'I will check the weather in Paris for you.' },
  { file: 'bare-trailing-prose.txt', group: 'sloppy', model: 'Llama-3.2-1B-Instruct', calls: [gw('Paris')], text: 'I hope this helps!' },
  { file: 'bare-unterminated-prose.txt', group: 'sloppy', model: 'Llama-3.2-1B-Instruct q4', calls: [gw('Paris')], text: 'Let me know if you need anything else.' },
  { file: 'single-quoted.txt', group: 'sloppy', model: 'Qwen2.5-0.5B-Instruct q4', calls: [gw('Paris', { metric: true })], text: '' },
  { file: 'trailing-comma.txt', group: 'sloppy', model: 'Qwen3-0.6B q4', calls: [gw('Paris')], text: '' },
  { file: 'wrong-case-name.txt', group: 'sloppy', model: 'Qwen3-0.6B q4', tools: DEMO_TOOLS, calls: [gw('Paris')], text: '' },
  { file: 'string-arguments.txt', group: 'sloppy', model: 'Qwen2.5-0.5B-Instruct q8', calls: [gw('Paris')], text: '' },
  { file: 'orphan-think-close.txt', group: 'sloppy', model: 'Qwen3-0.6B (template opened <think>)', startsInThinking: true, calls: [gw('Paris')], text: '' },
  {
    file: 'truncated-string.txt',
    group: 'sloppy',
    model: 'Qwen3-0.6B (max tokens hit)',
    calls: [],
    text: '',
    rejected: [{ name: 'get_weather', reason: 'truncated' }],
  },

  // Negatives: nothing here is a call
  {
    file: 'prose-only.txt',
    group: 'negative',
    model: 'Qwen3-0.6B',
    tools: DEMO_TOOLS,
    calls: [],
    text: "The weather in Paris is usually mild in spring, with highs around 18°C. I don't have live data, but you can check a forecast site for today's conditions.",
  },
  {
    file: 'json-data.txt',
    group: 'negative',
    model: 'Qwen2.5-0.5B-Instruct',
    calls: [],
    text: 'Here is the user record you asked for:\n\n{"name": "Alice", "age": 3, "tags": ["admin"]}\n\nLet me know if you want it in another format.',
  },
  {
    file: 'json-explanation.txt',
    group: 'negative',
    model: 'Llama-3.2-1B-Instruct',
    calls: [],
    text: 'In JSON, an object such as {"name": "Alice", "email": "alice@example.com"} maps keys to values, and arrays like [1, 2, 3] hold ordered lists. Braces {like these} are just text.',
  },
  {
    file: 'python-fence.txt',
    group: 'negative',
    model: 'Qwen2.5-Coder-0.5B',
    calls: [],
    text: 'You can build the call yourself in Python:\n\n```python\nimport json\n\ncall = {"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "get_weather", "arguments": {"city": "Paris"}}\nprint(json.dumps(call))\n```\n\nThis prints the JSON for the call.',
  },
  {
    file: 'js-fence.txt',
    group: 'negative',
    model: 'Qwen2.5-Coder-0.5B',
    calls: [],
    text: 'In JavaScript:\n\n```js\nconst msg = `<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>`;\nconsole.log(msg);\n```',
  },
  { file: 'call-inside-think.txt', group: 'negative', model: 'Qwen3-0.6B (thinking on)', calls: [], text: 'Paris has an oceanic climate: mild summers and cool, damp winters.' },
  {
    file: 'placeholder.txt',
    group: 'negative',
    model: 'Qwen3-0.6B q4 (echoing the system prompt)',
    calls: [],
    text: 'For each function call, return a json object with function name and arguments within  XML tags:',
    rejected: [{ name: '<function-name>', reason: 'placeholder' }],
  },
  {
    file: 'placeholder-bare.txt',
    group: 'negative',
    model: 'SmolLM2-360M-Instruct',
    calls: [],
    text: 'To call a tool, reply with:\n{"name": "function_name", "arguments": {"arg1": "value1"}}',
  },
  {
    file: 'unregistered-name.txt',
    group: 'negative',
    model: 'Qwen2.5-0.5B-Instruct q8 (one tool registered, name misspelt)',
    tools: ['get_weather'],
    calls: [],
    text: '',
    rejected: [{ name: 'get_wether', reason: 'unregistered' }],
  },
  {
    file: 'tool-definition-echo.txt',
    group: 'negative',
    model: 'SmolLM2-360M-Instruct',
    calls: [],
    text: '{"type": "function", "function": {"name": "get_weather", "description": "Get current weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}',
  },
  {
    file: 'nested-example.txt',
    group: 'negative',
    model: 'Llama-3.2-1B-Instruct',
    calls: [],
    text: 'A request looks like {"example": {"name": "get_weather", "arguments": {"city": "Paris"}}} in our logs.',
  },
  {
    file: 'inline-code.txt',
    group: 'negative',
    model: 'Qwen2.5-0.5B-Instruct',
    calls: [],
    text: 'Use `{"name": "get_weather", "arguments": {"city": "Paris"}}` to ask for the weather.',
  },
  {
    file: 'json-fence-data.txt',
    group: 'negative',
    model: 'Qwen3-0.6B',
    calls: [],
    text: 'The API returned:\n\n```json\n{"city": "Paris", "temperature": 18, "conditions": "cloudy"}\n```\n\nSo it is 18°C and cloudy.',
  },
  {
    file: 'markdown-links.txt',
    group: 'negative',
    model: 'Qwen3-0.6B',
    calls: [],
    text: 'See [the forecast](https://example.com/paris) and [1] for details. Use `code` and ``double`` ticks; 3 < 5 and [TOOL] is not a marker.',
  },
];
