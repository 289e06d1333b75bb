import type { ToolCall } from '../types.ts';

/**
 * Raw outputs modelled on other projects' parser tests, one family at a time, each citing where
 * its shape comes from. Written here (not recorded from a model run): the upstream tests are the
 * record of what those models emit. `calls: []` cases must yield no call at all.
 *
 * Sources:
 * - [TC] ggml-org/llama.cpp `tests/test-chat.cpp` (and `docs/function-calling.md`)
 * - [vT] vllm-project/vllm `tests/tool_parsers/test_<x>_tool_parser.py`
 * - [OL] ollama/ollama `model/parsers/*_test.go`
 * - [HF] model cards and chat templates on the Hugging Face hub, and Google's FunctionGemma docs
 */
export interface UpstreamCase {
  /** Stable id: `<format>/<what>`. */
  id: string;
  /** Where the shape comes from. */
  source: string;
  raw: string;
  /** Parse with these tools registered (default: {@link UPSTREAM_TOOLS}). */
  tools?: readonly string[] | null;
  /** The calls that must come out, in order. */
  calls: ToolCall[];
  /** The visible text, when the case checks it. */
  text?: string;
}

/** What the upstream tests register. */
export const UPSTREAM_TOOLS = [
  'special_function',
  'special_function_with_opt',
  'python',
  'get_weather',
  'get_current_weather',
  'get_time',
  'web_search',
  'write_note',
  'register_user',
] as const;

const sf = (arg1: unknown = 1): ToolCall => ({ name: 'special_function', arguments: { arg1 } });
const sfo = (): ToolCall => ({ name: 'special_function_with_opt', arguments: { arg1: 1, arg2: 2 } });
const weather = (args: Record<string, unknown>): ToolCall => ({ name: 'get_weather', arguments: args });

export const UPSTREAM_CASES: readonly UpstreamCase[] = [
  // --- Hermes / Qwen, for reference
  { id: 'hermes/single', source: '[TC] Hermes 2 Pro', raw: '<tool_call>\n{"name": "special_function", "arguments": {"arg1": 1}}\n</tool_call>', calls: [sf()], text: '' },
  { id: 'hermes/no-newlines', source: '[TC] Qwen2.5', raw: '<tool_call>{"name":"special_function","arguments":{"arg1":1}}</tool_call>', calls: [sf()], text: '' },

  // --- <function=NAME>{json}</function>: Llama 3.1 custom tool format, Functionary v3.1, Hermes drifting
  { id: 'function-eq-json/llama31', source: '[TC] Llama 3.1 custom tool format; Functionary v3.1', raw: '<function=special_function>{"arg1": 1}</function>', calls: [sf()], text: '' },
  { id: 'function-eq-json/prose-before', source: '[TC] Functionary v3.1 "Hell<function=…"', raw: 'Hello, world!\nWhat\'s up?<function=special_function>{"arg1": 1}</function>', calls: [sf()], text: "Hello, world!\nWhat's up?" },
  { id: 'function-eq-json/two', source: '[TC] Functionary v3.1 parallel', raw: '<function=special_function>{"arg1": 1}</function>\n<function=special_function_with_opt>{"arg1": 1, "arg2": 2}</function>', calls: [sf(), sfo()], text: '' },
  { id: 'function-eq-json/in-tool-call', source: '[TC] Hermes 2 Pro drifting ("<tool_call><function=…>{…}</function>")', raw: '<tool_call>\n<function=special_function>{"arg1": 1}</function>\n</tool_call>', calls: [sf()], text: '' },
  { id: 'function-eq-json/python', source: '[TC] Functionary v3.1 ipython', raw: '<function=python>{"code": "print(\'hey\')"}</function>', calls: [{ name: 'python', arguments: { code: "print('hey')" } }], text: '' },
  { id: 'function-name-attr/json', source: '[TC] Hermes 2 Pro "<function name=\\"special_function\\">"', raw: '<function name="special_function">{"arg1": 1}</function>', calls: [sf()], text: '' },
  { id: 'function-name-attr/in-tool-call', source: '[TC] Hermes 2 Pro', raw: '<tool_call>\n<function name="special_function">\n{"arg1": 1}\n</function>\n</tool_call>', calls: [sf()], text: '' },

  // --- Functionary v3.2
  { id: 'functionary32/recipient', source: '[TC] Functionary v3.2 ">>>special_function"', raw: '>>>special_function\n{"arg1": 1}', calls: [sf()], text: '' },
  { id: 'functionary32/bare-recipient', source: '[TC] Functionary v3.2 first recipient without >>>', raw: 'special_function\n{"arg1": 1}\n', calls: [sf()], text: '' },
  { id: 'functionary32/all-then-call', source: '[TC] Functionary v3.2 "all\\n…>>>special_function"', raw: 'all\nHello, world!\nnono\nWhat\'s up?>>>special_function\n{"arg1": 1}\n', calls: [sf()], text: "Hello, world!\nnono\nWhat's up?" },
  { id: 'functionary32/two', source: '[TC] Functionary v3.2 parallel', raw: '>>>special_function\n{"arg1": 1}\n>>>special_function_with_opt\n{"arg1": 1, "arg2": 2}', calls: [sf(), sfo()], text: '' },
  { id: 'functionary32/all-content', source: '[TC] Functionary v3.2 ">>>all\\nHello"', raw: '>>>all\nHello, world!\nWhat\'s up?', calls: [], text: "Hello, world!\nWhat's up?" },

  // --- DeepSeek
  {
    id: 'deepseek-r1/fenced',
    source: '[TC] DeepSeek R1 / R1-Distill',
    raw: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>special_function\n```json\n{"arg1": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [sf()],
    text: '',
  },
  {
    id: 'deepseek-r1/thinking-then-call',
    source: '[TC] DeepSeek R1 with reasoning',
    raw: '<think>I\'m\nthinking</think>\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>special_function\n```json\n{"arg1": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [sf()],
    text: '',
  },
  {
    id: 'deepseek-r1/two',
    source: '[vT] deepseekv3 parallel',
    raw: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Tokyo"}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{"city": "Tokyo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [weather({ city: 'Tokyo' }), { name: 'get_time', arguments: { city: 'Tokyo' } }],
    text: '',
  },
  {
    id: 'deepseek-v31/no-fence',
    source: '[TC] DeepSeek V3.1',
    raw: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>special_function<｜tool▁sep｜>{"arg1": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [sf()],
    text: '',
  },
  {
    id: 'deepseek/prose-before',
    source: '[vT] deepseekv3 content before the calls',
    raw: 'Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [weather({ city: 'Paris' })],
    text: 'Let me check.',
  },
  {
    id: 'deepseek/ascii-variant',
    source: '[TC] R1-Distill drifting to "<｜tool_calls_begin｜>"',
    raw: '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>special_function\n```json\n{"arg1": 1}\n```<｜tool_call_end｜><｜tool_calls_end｜>',
    calls: [sf()],
    text: '',
  },

  // --- FunctionGemma and Gemma 4
  { id: 'functiongemma/single', source: '[vT] functiongemma; [HF] FunctionGemma formatting guide', raw: '<start_function_call>call:get_weather{location:<escape>London<escape>}<end_function_call>', calls: [weather({ location: 'London' })], text: '' },
  {
    id: 'functiongemma/two',
    source: '[vT] functiongemma parallel',
    raw: '<start_function_call>call:get_weather{location:<escape>London<escape>}<end_function_call><start_function_call>call:get_time{timezone:<escape>UTC<escape>}<end_function_call>',
    calls: [weather({ location: 'London' }), { name: 'get_time', arguments: { timezone: 'UTC' } }],
    text: '',
  },
  { id: 'functiongemma/number', source: '[vT] functiongemma "<escape>42<escape>" and bare numbers', raw: '<start_function_call>call:special_function{arg1:1}<end_function_call>', calls: [sf()], text: '' },
  {
    id: 'functiongemma/typed',
    source: '[vT] functiongemma multiple typed arguments',
    raw: '<start_function_call>call:special_function_with_opt{arg1:1,arg2:2}<end_function_call>',
    calls: [sfo()],
    text: '',
  },
  {
    id: 'functiongemma/response-stop',
    source: '[HF] FunctionGemma: <start_function_response> follows the call',
    raw: '<start_function_call>call:get_weather{location:<escape>Paris<escape>}<end_function_call><start_function_response>',
    calls: [weather({ location: 'Paris' })],
    text: '',
  },
  { id: 'gemma4/single', source: '[HF] Gemma 4 chat template; vLLM gemma4 parser', raw: '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>', calls: [weather({ city: 'Paris' })], text: '' },
  {
    id: 'gemma4/nested',
    source: '[HF] Gemma 4: bare keys, nested objects, numbers, booleans, lists',
    raw: '<|tool_call>call:register_user{name:<|"|>John Doe<|"|>,age:37,address:{city:<|"|>San Francisco<|"|>,state:<|"|>CA<|"|>},passed_test:true,aliases:[<|"|>John<|"|>,<|"|>Johnny<|"|>]}<tool_call|>',
    calls: [{ name: 'register_user', arguments: { name: 'John Doe', age: 37, address: { city: 'San Francisco', state: 'CA' }, passed_test: true, aliases: ['John', 'Johnny'] } }],
    text: '',
  },
  {
    id: 'gemma4/prose-and-two',
    source: '[HF] Gemma 4 parallel calls after a preamble',
    raw: 'Checking both.<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|><|tool_call>call:get_time{city:<|"|>Paris<|"|>}<tool_call|>',
    calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }],
    text: 'Checking both.',
  },
  { id: 'gemma/tool-code-fence', source: '[HF] Gemma function-calling guide (```tool_code)', raw: '```tool_code\nprint(get_weather(city="London"))\n```', calls: [weather({ city: 'London' })], text: '' },

  // --- Pythonic
  {
    id: 'pythonic/two',
    source: '[vT] pythonic (Llama 3.2 pythonic template)',
    raw: '[get_weather(city="Paris"), get_time(tz="UTC")]',
    calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { tz: 'UTC' } }],
    text: '',
  },
  {
    id: 'pythonic/python-literals',
    source: '[vT] pythonic: single quotes, True, None, nested dict and list',
    raw: "[register_user(name='John Doe', age=37, address={'city': 'San Francisco', 'state': 'CA'}, role=None, passed_test=True, aliases=['John', 'Johnny'])]",
    calls: [{ name: 'register_user', arguments: { name: 'John Doe', age: 37, address: { city: 'San Francisco', state: 'CA' }, role: null, passed_test: true, aliases: ['John', 'Johnny'] } }],
    text: '',
  },
  { id: 'pythonic/no-args', source: '[vT] pythonic: a call with no arguments', raw: '[get_time()]', calls: [{ name: 'get_time', arguments: {} }], text: '' },
  { id: 'lfm2/single', source: '[TC] test_lfm2_parser', raw: '<|tool_call_start|>[get_time(city="XYZCITY")]<|tool_call_end|>', calls: [{ name: 'get_time', arguments: { city: 'XYZCITY' } }], text: '' },
  { id: 'lfm2/two', source: '[TC] test_lfm2_parser parallel', raw: '<|tool_call_start|>[special_function(arg1=1), special_function_with_opt(arg1=1, arg2=2)]<|tool_call_end|>', calls: [sf(), sfo()], text: '' },
  {
    id: 'lfm2/prose-and-echo',
    source: '[vT] lfm2: text before, and the body echoed after the end marker',
    raw: 'Let me check the time.<|tool_call_start|>[get_time(city="Paris")]<|tool_call_end|>Checking the time in Paris.',
    calls: [{ name: 'get_time', arguments: { city: 'Paris' } }],
    text: 'Let me check the time.Checking the time in Paris.',
  },
  { id: 'lfm2/json-body', source: '[HF] LFM2 "Output function calls as JSON"', raw: '<|tool_call_start|>[{"name": "get_time", "arguments": {"city": "Paris"}}]<|tool_call_end|>', calls: [{ name: 'get_time', arguments: { city: 'Paris' } }], text: '' },
  { id: 'llama4/python-start', source: '[vT] llama4 pythonic', raw: '<|python_start|>[get_weather(city="Paris")]<|python_end|>', calls: [weather({ city: 'Paris' })], text: '' },

  {
    id: 'llama3/semicolons',
    source: '[vT] llama3_json "{…}; {…}"',
    raw: '{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_time", "parameters": {"city": "Paris"}}',
    calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }],
    text: '',
  },
  { id: 'prose/semicolon-after-data', source: '[OL] a semicolon after data JSON is text', raw: 'It was {"a": 1}; {"b": 2} next.', calls: [], text: 'It was {"a": 1}; {"b": 2} next.' },

  // --- Granite, Phi-4-mini, Nemotron
  { id: 'granite3/tool-call-token', source: '[TC] Granite 3.x "<|tool_call|>[…]"', raw: '<|tool_call|>[{"name": "special_function", "arguments": {"arg1": 1}}]', calls: [sf()], text: '' },
  { id: 'granite3/two', source: '[vT] granite', raw: '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {"city": "Paris"}}]', calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }], text: '' },
  { id: 'granite4/hermes', source: '[vT] granite4; [HF] Granite 4.0 prompt guide', raw: '<tool_call>\n{"name": "get_current_weather", "arguments": {"city": "Bengaluru"}}\n</tool_call>', calls: [{ name: 'get_current_weather', arguments: { city: 'Bengaluru' } }], text: '' },
  { id: 'phi4mini/functools', source: '[vT] phi4mini (phi4_mini_json)', raw: 'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]', calls: [weather({ city: 'Tokyo' })], text: '' },
  {
    id: 'phi4mini/two',
    source: '[vT] phi4mini parallel',
    raw: 'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "get_time", "arguments": {"city": "Tokyo"}}]',
    calls: [weather({ city: 'Tokyo' }), { name: 'get_time', arguments: { city: 'Tokyo' } }],
    text: '',
  },
  { id: 'phi4/tool-call-tag', source: '[TC] llama.cpp Phi-4-mini template "<|tool_call|>{…}<|/tool_call|>"', raw: '<|tool_call|>{"name": "special_function", "arguments": {"arg1": 1}}<|/tool_call|>', calls: [sf()], text: '' },
  { id: 'nemotron/toolcall', source: '[TC] Nemotron "<TOOLCALL>[…]</TOOLCALL>"', raw: '<TOOLCALL>[{"name": "special_function", "arguments": {"arg1": 1}}]</TOOLCALL>', calls: [sf()], text: '' },
  {
    id: 'nemotron/prose-two',
    source: '[TC] Nemotron parallel after text',
    raw: 'Sure.<TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {"city": "Paris"}}]</TOOLCALL>',
    calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }],
    text: 'Sure.',
  },

  // --- OpenAI legacy, Command-R, xLAM
  { id: 'openai-legacy/function-call', source: '[vT] legacy OpenAI function_call', raw: '{"function_call": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}', calls: [weather({ city: 'Paris' })], text: '' },
  {
    id: 'command-r/action',
    source: '[TC] Command R7B "<|START_ACTION|>[…]<|END_ACTION|>"',
    raw: '<|START_THINKING|>I need to call it.<|END_THINKING|><|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "special_function", "parameters": {"arg1": 1}}\n]<|END_ACTION|>',
    calls: [sf()],
    text: '',
  },
  {
    id: 'command-r/plus-fence',
    source: '[HF] Command R+ "Action: ```json […]```"',
    raw: 'Action: ```json\n[\n    {\n        "tool_name": "get_weather",\n        "parameters": {"city": "Paris"}\n    }\n]\n```',
    calls: [weather({ city: 'Paris' })],
  },
  { id: 'xlam/list', source: '[vT] xlam', raw: '[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {"city": "Paris"}}]', calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }], text: '' },
  { id: 'xlam/fenced-list', source: '[vT] xlam in a ```json fence', raw: '```json\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n```', calls: [weather({ city: 'Paris' })], text: '' },

  // --- GLM, Kimi, MiniMax, GPT-OSS
  { id: 'glm45/arg-key', source: '[TC] GLM-4.5/4.6 "<arg_key>/<arg_value>"', raw: '<tool_call>special_function\n<arg_key>arg1</arg_key>\n<arg_value>1</arg_value>\n</tool_call>', calls: [sf()], text: '' },
  {
    id: 'glm45/two-args-text',
    source: '[vT] glm4_moe',
    raw: 'I will check.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>date</arg_key>\n<arg_value>2024-06-27</arg_value>\n</tool_call>',
    calls: [weather({ city: 'Beijing', date: '2024-06-27' })],
    text: 'I will check.',
  },
  { id: 'kimi/single', source: '[TC] Kimi K2', raw: '<|tool_calls_section_begin|><|tool_call_begin|>functions.special_function:0<|tool_call_argument_begin|>{"arg1": 1}<|tool_call_end|><|tool_calls_section_end|>', calls: [sf()], text: '' },
  {
    id: 'kimi/two',
    source: '[vT] kimi_k2 parallel',
    raw: '<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|>\n<|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|>\n<|tool_calls_section_end|>',
    calls: [weather({ city: 'Beijing' }), { name: 'get_time', arguments: { city: 'Beijing' } }],
    text: '',
  },
  {
    id: 'minimax/invoke',
    source: '[vT] minimax_m2',
    raw: '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Sydney</parameter>\n</invoke>\n</minimax:tool_call>',
    calls: [weather({ city: 'Sydney' })],
    text: '',
  },
  {
    id: 'minimax/two-typed',
    source: '[vT] minimax_m2 parallel, typed parameters',
    raw: 'Let me look.\n<minimax:tool_call>\n<invoke name="special_function_with_opt">\n<parameter name="arg1">1</parameter>\n<parameter name="arg2">2</parameter>\n</invoke>\n<invoke name="special_function">\n<parameter name="arg1">1</parameter>\n</invoke>\n</minimax:tool_call>',
    calls: [sfo(), sf()],
    text: 'Let me look.',
  },
  {
    id: 'gpt-oss/commentary',
    source: '[TC] GPT-OSS',
    raw: '<|channel|>analysis<|message|>I\'m\nthinking<|end|><|start|>assistant<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>{"arg1": 1}<|call|>',
    calls: [sf()],
    text: '',
  },
  {
    id: 'gpt-oss/recipient-first',
    source: '[TC] GPT-OSS recipient before the channel',
    raw: '<|start|>assistant to=functions.special_function<|channel|>commentary json<|message|>{"arg1": 1}<|call|>',
    calls: [sf()],
    text: '',
  },
  {
    id: 'gpt-oss/header-in-prompt',
    source: '[TC] GPT-OSS output after the "<|start|>assistant" header',
    raw: '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Tokyo"}<|call|>',
    calls: [weather({ city: 'Tokyo' })],
    text: '',
  },
  {
    id: 'gpt-oss/final',
    source: '[TC] GPT-OSS final channel',
    raw: '<|channel|>analysis<|message|>We need to greet.<|end|><|start|>assistant<|channel|>final<|message|>Hello there!',
    calls: [],
    text: 'Hello there!',
  },

  // --- JSON in other tags (llama.cpp's Hermes 2 Pro parser; vLLM minimax, hunyuan, jamba, granite-20b-fc, longcat)
  { id: 'tagged/tool-calls', source: '[vT] minimax (M1) / hunyuan_a13b / jamba "<tool_calls>"', raw: '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "get_time", "arguments": {"city": "Paris"}}\n</tool_calls>', calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }], text: '' },
  { id: 'tagged/tool-calls-list', source: '[vT] hunyuan_a13b "<tool_calls>[…]</tool_calls>"', raw: 'Sure.<tool_calls>[{"name": "special_function", "arguments": {"arg1": 1}}]</tool_calls>', calls: [sf()], text: 'Sure.' },
  { id: 'tagged/function-call', source: '[vT] granite-20b-fc "<function_call> {…}"', raw: '<function_call> {"name": "special_function", "arguments": {"arg1": 1}}', calls: [sf()], text: '' },
  { id: 'tagged/longcat', source: '[vT] longcat', raw: '<longcat_tool_call>{"name": "special_function", "arguments": {"arg1": 1}}</longcat_tool_call>', calls: [sf()], text: '' },
  { id: 'tagged/hermes-tool', source: '[TC] Hermes 2 Pro "<tool>…</tool>"', raw: '<tool>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</tool>', calls: [sf()], text: '' },
  { id: 'tagged/hermes-json', source: '[TC] Hermes 2 Pro "<json>…</json>"', raw: '<json>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</json>', calls: [sf()], text: '' },
  { id: 'tagged/hermes-response', source: '[TC] Hermes 2 Pro "<response>…</response>"', raw: '<response>\n  {"name": "special_function", "arguments": {"arg1": 1}}\n</response>', calls: [sf()], text: '' },
  { id: 'tagged/json-data', source: '[OL] data in a <json> tag is not a call', raw: 'The record: <json>{"name": "Alice", "age": 3}</json>', calls: [], text: 'The record: <json>{"name": "Alice", "age": 3}</json>' },
  { id: 'fence/xml-json', source: '[TC] Hermes 2 Pro JSON in an ```xml fence', raw: '```xml\n{"name": "special_function", "arguments": {"arg1": 1}}\n```', calls: [sf()], text: '' },
  { id: 'seed-oss/xml', source: '[vT] seed_oss', raw: '<seed:think>Need it.</seed:think><seed:tool_call>\n<function=special_function>\n<parameter=arg1>\n1\n</parameter>\n</function>\n</seed:tool_call>', calls: [sf()], text: '' },
  { id: 'internlm/plugin', source: '[vT] internlm2', raw: '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>', calls: [weather({ city: 'Paris' })], text: '' },
  { id: 'apertus/name-key', source: '[TC] Apertus-8B-Instruct', raw: '<|tools_prefix|>[{"special_function": {"arg1": 1}}]<|tools_suffix|>', calls: [sf()], text: '' },
  { id: 'olmo3/lines', source: '[vT] olmo3 pythonic lines', raw: '<function_calls>get_weather(city="Paris")\nget_time(city="Paris")</function_calls>', calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }], text: '' },
  { id: 'firefunction/functools', source: '[TC] FireFunction v2 " functools[…]"', raw: ' functools[{"name": "special_function", "arguments": {"arg1": 1}}]', calls: [sf()], text: '' },

  // --- Several calls in one fence, xml fences
  {
    id: 'fence/tool-use-lines',
    source: '[OL] several JSON objects, one per line, in a ```tool_use fence',
    raw: '```tool_use\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "get_time", "arguments": {"city": "Paris"}}\n```',
    calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }],
    text: '',
  },
  {
    id: 'fence/json-lines',
    source: '[OL] newline-separated calls in a ```json fence',
    raw: 'Calling both:\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n{"name": "get_time", "arguments": {"city": "Paris"}}\n```',
    calls: [weather({ city: 'Paris' }), { name: 'get_time', arguments: { city: 'Paris' } }],
    text: 'Calling both:',
  },
  {
    id: 'fence/xml-wrapping-call',
    source: '[OL] a Hermes call wrapped in an ```xml fence',
    raw: '```xml\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n```',
    calls: [weather({ city: 'Paris' })],
    text: '',
  },
  {
    id: 'fence/xml-function',
    source: '[OL] Qwen3-Coder XML in an ```xml fence',
    raw: '```xml\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n```',
    calls: [weather({ city: 'Paris' })],
    text: '',
  },

  // --- Strictness: markup inside values is text
  {
    id: 'strict/json-value-with-tags',
    source: '[vT] hermes: a string argument holding call markup',
    raw: '<tool_call>\n{"name": "write_note", "arguments": {"text": "Wrap calls in <tool_call></tool_call> and use [TOOL_CALLS] or <|python_tag|>."}}\n</tool_call>',
    calls: [{ name: 'write_note', arguments: { text: 'Wrap calls in <tool_call></tool_call> and use [TOOL_CALLS] or <|python_tag|>.' } }],
    text: '',
  },
  {
    id: 'strict/json-value-with-function-tag',
    source: '[TC] Qwen3-Coder: a value holding </function> and </tool_call>',
    raw: '<tool_call>{"name": "write_note", "arguments": {"text": "<function=x></function></tool_call>"}}</tool_call>',
    calls: [{ name: 'write_note', arguments: { text: '<function=x></function></tool_call>' } }],
    text: '',
  },
  {
    id: 'strict/xml-value-with-tags',
    source: '[vT] qwen3coder: a parameter value holding call tags',
    raw: '<tool_call>\n<function=write_note>\n<parameter=text>\nUse </function> and <tool_call>{"name": "x"}</tool_call> freely.\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: 'write_note', arguments: { text: 'Use </function> and <tool_call>{"name": "x"}</tool_call> freely.' } }],
    text: '',
  },
  {
    id: 'strict/pythonic-value-with-end',
    source: '[vT] lfm2: a string argument holding the end marker',
    raw: '<|tool_call_start|>[write_note(text="done <|tool_call_end|> here")]<|tool_call_end|>',
    calls: [{ name: 'write_note', arguments: { text: 'done <|tool_call_end|> here' } }],
    text: '',
  },
  {
    id: 'strict/gemma-value-with-end',
    source: '[vT] functiongemma: an escaped value holding <end_function_call>',
    raw: '<start_function_call>call:write_note{text:<escape>see <end_function_call> inside<escape>}<end_function_call>',
    calls: [{ name: 'write_note', arguments: { text: 'see <end_function_call> inside' } }],
    text: '',
  },
  {
    id: 'strict/minimax-value-with-tags',
    source: '[vT] minimax_m2: a parameter value holding </invoke>',
    raw: '<minimax:tool_call>\n<invoke name="write_note">\n<parameter name="text">close with </invoke> and </minimax:tool_call></parameter>\n</invoke>\n</minimax:tool_call>',
    calls: [{ name: 'write_note', arguments: { text: 'close with </invoke> and </minimax:tool_call>' } }],
    text: '',
  },

  // --- Strictness: reasoning is not a call
  { id: 'think/qwen', source: '[TC] <think> holding a call', raw: '<think>Maybe <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call></think>It is sunny.', calls: [], text: 'It is sunny.' },
  { id: 'think/orphan-close', source: '[TC] leading orphan </think>', raw: 'I could call <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call></think>No call needed.', calls: [], text: 'No call needed.' },
  {
    id: 'think/mistral',
    source: '[TC] Magistral [THINK]…[/THINK]',
    raw: '[THINK]Should I call [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}? No.[/THINK]It is sunny in Paris.',
    calls: [],
    text: 'It is sunny in Paris.',
  },
  {
    id: 'think/mistral-then-call',
    source: '[TC] Magistral reasoning then a call',
    raw: '[THINK]I need the weather.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    calls: [weather({ city: 'Paris' })],
    text: '',
  },
  {
    id: 'think/gemma-thought',
    source: '[HF] Gemma 4 thought channel',
    raw: '<|channel>thought\nI might call <|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|> but no.<channel|>Paris is lovely.',
    calls: [],
    text: 'Paris is lovely.',
  },
  {
    id: 'think/gpt-oss-analysis',
    source: '[TC] GPT-OSS analysis channel holding a call-like line',
    raw: '<|channel|>analysis<|message|>Could use to=functions.get_weather {"city":"Paris"}.<|end|><|start|>assistant<|channel|>final<|message|>Paris is mild today.',
    calls: [],
    text: 'Paris is mild today.',
  },

  // --- Strictness: quoted, not emitted
  {
    id: 'quoted/blockquote',
    source: '[OL] a call quoted in a Markdown blockquote',
    raw: 'The model wrote:\n\n> <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n\nThat is the Hermes format.',
    calls: [],
  },
  {
    id: 'quoted/inline-code',
    source: '[OL] call syntax inside an inline code span',
    raw: 'Write `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>` to call it.',
    calls: [],
  },
  {
    id: 'quoted/inline-code-later',
    source: '[OL] inline code that starts before the call',
    raw: 'For example `call it like <function=get_weather>{"city": "Paris"}</function>` in your prompt.',
    calls: [],
  },
  {
    id: 'quoted/python-fence',
    source: '[OL] a call in a ```python fence',
    raw: '```python\nprint(get_weather(city="Paris"))\n```',
    calls: [],
  },
  {
    id: 'quoted/bash-fence-pythonic',
    source: '[OL] a pythonic call in a ```bash fence',
    raw: '```bash\n[get_weather(city="Paris")]\n```',
    calls: [],
  },
  {
    id: 'quoted/placeholder-values',
    source: '[OL] a documentation example with placeholder values',
    raw: 'To get the weather, reply with {"name": "get_weather", "arguments": {"city": "<city>"}} and wait.',
    calls: [],
  },
  {
    id: 'quoted/placeholder-values-markup',
    source: '[OL] the system prompt\'s example echoed in markup',
    raw: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "<city name>"}}\n</tool_call>',
    calls: [],
  },
  {
    id: 'quoted/placeholder-ellipsis',
    source: '[OL] example with "..." values',
    raw: 'Format: {"name": "get_weather", "arguments": {"city": "..."}}',
    calls: [],
  },

  {
    id: 'quoted/placeholder-caps',
    source: '[OL] example with YOUR_… values',
    raw: '<tool_call>{"name": "web_search", "arguments": {"query": "YOUR_QUERY_HERE"}}</tool_call>',
    calls: [],
  },
  {
    id: 'quoted/placeholder-bracketed',
    source: '[OL] example with [bracketed] values',
    raw: 'Reply with {"name": "get_weather", "arguments": {"city": "[city name]"}} to check.',
    calls: [],
  },
  {
    id: 'real/value-that-looks-odd',
    source: '[OL] real values that are not filler',
    raw: '<tool_call>{"name": "web_search", "arguments": {"query": "<b> tag html"}}</tool_call>',
    calls: [{ name: 'web_search', arguments: { query: '<b> tag html' } }],
    text: '',
  },

  // --- Strictness: truncated names are never completed
  { id: 'truncated/hermes-name', source: '[vT] streaming cut inside the name', raw: '<tool_call>\n{"name": "get_wea', calls: [] },
  { id: 'truncated/functiongemma-name', source: '[vT] functiongemma cut inside the name', raw: '<start_function_call>call:get_wea', calls: [] },
  { id: 'truncated/mistral-name', source: '[TC] Mistral cut inside the name', raw: '[TOOL_CALLS]get_wea', calls: [] },
  { id: 'truncated/pythonic-name', source: '[vT] pythonic cut inside the name', raw: '<|tool_call_start|>[get_wea', calls: [] },
  { id: 'truncated/kimi-name', source: '[TC] Kimi cut inside the name', raw: '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_wea', calls: [] },
  { id: 'truncated/unregistered-prefix', source: '[OL] a name that is a prefix of a registered one', raw: '<tool_call>{"name": "get_weath", "arguments": {"city": "Paris"}}</tool_call>', calls: [] },

  // --- Prose that only looks like the new formats
  { id: 'prose/pythonic-in-sentence', source: '[OL] prose mentioning a call', raw: 'You could run get_weather(city="Paris") yourself, or [see the docs](https://example.com).', calls: [] },
  { id: 'prose/list-of-numbers', source: '[OL] a list that is data', raw: '[1, 2, 3] are the first numbers.', calls: [] },
  { id: 'prose/python-repl', source: '[OL] a REPL prompt is not a Functionary recipient', raw: '>>> print("hi")\nhi', calls: [] },
  { id: 'prose/word-then-json', source: '[OL] a word on its own line before data JSON', raw: 'Result\n{"city": "Paris", "temperature": 18}', calls: [] },
  { id: 'prose/functools-word', source: '[OL] the word functools in prose', raw: 'The functools module has lru_cache.', calls: [] },
];

/** Markers mentioned in prose: no call, and the prose after the marker stays visible. */
export const MENTIONED_MARKERS: readonly { raw: string; text: string }[] = [
  { raw: 'Granite writes <|tool_call|> before its calls.', text: 'Granite writes  before its calls.' },
  { raw: 'LFM2 wraps calls in <|tool_call_start|> and <|tool_call_end|> markers.', text: 'LFM2 wraps calls in  and  markers.' },
  { raw: 'Nemotron uses <TOOLCALL> tags, see the docs.', text: 'Nemotron uses  tags, see the docs.' },
  { raw: 'FunctionGemma opens with <start_function_call> — then the name.', text: 'FunctionGemma opens with  — then the name.' },
];
