/**
 * The app's own `tools.js` (top level of the package), loaded the way the page loads it: through
 * evalTools into a registry, then run through runTool. Its handlers only reach the network through
 * `context.fetch`, which every test here replaces with recorded Open-Meteo answers.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { evalTools } from './load-tools.ts';
import { ToolRegistry, type ToolRunResult } from './tool-registry.ts';

const toolsSource = readFileSync(new URL('../../tools.js', import.meta.url), 'utf8');
const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

const tools = new ToolRegistry();
beforeAll(async () => {
  await evalTools(tools, toolsSource, { sourceName: 'tools.js' });
});
beforeEach(() => {
  vi.stubGlobal('fetch', () => Promise.reject(new Error('network access is disabled in tests')));
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** The handler's result, failing the test with the model-facing error if there is none. */
function resultOf(run: ToolRunResult): unknown {
  if (!run.ok) throw new Error(`expected a result, got: ${run.error}`);
  return run.result;
}

function errorOf(run: ToolRunResult): string {
  if (run.ok) throw new Error(`expected an error, got: ${JSON.stringify(run.result)}`);
  return run.error;
}

it('registers the three tools, each described and read-only', () => {
  expect(tools.names).toEqual(['current_datetime', 'calculator', 'get_weather']);
  for (const name of tools.names) expect(tools.get(name)).toMatchObject({ readOnly: true, confirm: false });
  expect(tools.get('current_datetime')?.parameters.required).toEqual([]);
  expect(tools.get('calculator')?.parameters.required).toEqual(['expression']);
  expect(tools.get('get_weather')?.parameters.required).toEqual(['city']);
});

describe('current_datetime', () => {
  const at = async (instant: string, args: Record<string, unknown>) => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(instant) });
    return tools.runTool('current_datetime', args);
  };

  it('describes the moment in a given IANA zone', async () => {
    expect(resultOf(await at('2025-06-01T08:33:20Z', { time_zone: 'Asia/Kolkata' }))).toEqual({
      iso: '2025-06-01T14:03:20+05:30',
      date: '2025-06-01',
      time: '14:03:20',
      weekday: 'Sunday',
      local: 'Sunday, 1 June 2025 at 14:03',
      time_zone: 'Asia/Kolkata',
      utc_offset: '+05:30',
    });
  });

  it('follows daylight saving time and negative, fractional offsets', async () => {
    expect(resultOf(await at('2025-06-01T08:33:20Z', { time_zone: 'America/New_York' }))).toMatchObject({
      iso: '2025-06-01T04:33:20-04:00',
      utc_offset: '-04:00',
    });
    expect(resultOf(await at('2025-01-15T08:33:20Z', { time_zone: 'America/New_York' }))).toMatchObject({ utc_offset: '-05:00' });
    expect(resultOf(await at('2025-06-01T08:33:20Z', { time_zone: 'America/St_Johns' }))).toMatchObject({
      iso: '2025-06-01T06:03:20-02:30',
    });
  });

  it('crosses the date line: it is already tomorrow in Kiritimati', async () => {
    expect(resultOf(await at('2025-12-31T23:30:00Z', { time_zone: 'Pacific/Kiritimati' }))).toMatchObject({
      date: '2026-01-01',
      weekday: 'Thursday',
      utc_offset: '+14:00',
    });
  });

  it("defaults to the user's own time zone, also for an empty string", async () => {
    const own = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(resultOf(await at('2025-06-01T08:33:20Z', {}))).toMatchObject({ time_zone: own });
    expect(resultOf(await at('2025-06-01T08:33:20Z', { time_zone: '' }))).toMatchObject({ time_zone: own });
  });

  it('fixes the case of a zone, and accepts a city named exactly like one', async () => {
    expect(resultOf(await at('2025-06-01T08:33:20Z', { time_zone: 'europe/paris' }))).toMatchObject({
      time_zone: 'Europe/Paris',
      time: '10:33:20',
    });
    expect(resultOf(await at('2025-06-01T08:33:20Z', { time_zone: 'Tokyo' }))).toMatchObject({ time_zone: 'Asia/Tokyo' });
    expect(resultOf(await at('2025-06-01T08:33:20Z', { time_zone: 'new york' }))).toMatchObject({ time_zone: 'America/New_York' });
  });

  it('tells the model how to name a zone when it does not exist', async () => {
    expect(errorOf(await at('2025-06-01T08:33:20Z', { time_zone: 'Mars/Base' }))).toBe(
      "current_datetime failed: Unknown time zone 'Mars/Base'. Use an IANA name such as 'Europe/Paris' or 'Asia/Kolkata'.",
    );
  });
});

describe('calculator', () => {
  const calculate = (expression: unknown) => tools.runTool('calculator', { expression });

  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 / 4', 2.5],
    ['7 % 3', 1],
    ['2 ^ 10', 1024],
    ['2 ** 10', 1024],
    ['2 ^ 3 ^ 2', 512], // right-associative
    ['-2 ^ 2', -4], // unary minus binds looser than power
    ['2 ^ -1', 0.5],
    ['--3', 3],
    ['-(4 - 10)', 6],
    ['+5', 5],
    ['1.5e3 + .5', 1500.5],
    ['2.5E-1', 0.25],
    ['0.1 + 0.2', 0.3], // binary noise rounded away
    ['3 x 4', 12],
    ['3x4', 12],
    ['6 × 7', 42],
    ['10 ÷ 4', 2.5],
    ['5 − 8', -3],
    ['sqrt(16) + abs(-3)', 7],
    ['round(2.5) + floor(2.7) + ceil(2.1)', 8],
    ['sin(pi / 2) + cos(0) + tan(0)', 2],
    ['ln(e)', 1],
    ['log(1000)', 3],
    ['log2(8)', 3],
    ['exp(0)', 1],
    ['pow(2, 8)', 256],
    ['min(4, 2, 8) + max(1, 9)', 11],
    ['2 * π', 6.28318530717959],
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: the calculator answers with 15 significant digits.
    ['PI', 3.14159265358979],
    ['SQRT(9)', 3],
    ['  (  ( 1 ) )  ', 1],
    ['12.5 * 4 / 3', 16.6666666666667],
    ['sqrt(2) ^ 2', 2],
    ['1.1 * 1.1 * 1.1', 1.331],
    ['1e15 + 1', 1000000000000001],
  ])('%s = %d', async (expression, expected) => {
    expect(resultOf(await calculate(expression))).toEqual({ expression, result: expected });
  });

  it.each([
    ['2 + (3 * )', "Unexpected ')' at position 10 in \"2 + (3 * )\": expected a number, a name or '('."],
    ['(1 + 2', 'Unexpected end of the expression at position 7 in "(1 + 2": expected \')\'.'],
    ['1 + 2)', 'Unexpected \')\' at position 6 in "1 + 2)".'],
    ['2 3', 'Unexpected \'3\' at position 3 in "2 3".'],
    ['2pi', 'Unexpected \'pi\' at position 2 in "2pi".'],
    ['1,000', 'Unexpected \',\' at position 2 in "1,000".'],
    ['sqrt 4', "Unexpected '4' at position 6 in \"sqrt 4\": expected '(' after sqrt."],
    ['1 + $5', 'Unexpected \'$\' at position 5 in "1 + $5". Use numbers, + - * / % ^, parentheses and functions such as sqrt().'],
    [
      'cbrt(27)',
      'Unknown name \'cbrt\' at position 1 in "cbrt(27)". Functions: sqrt, abs, round, floor, ceil, sin, cos, tan, asin, acos, atan, ln, log, log2, exp, pow, min, max; constants: pi, e.',
    ],
    ['sqrt(1, 2)', 'sqrt() takes 1 argument, got 2, at position 1 in "sqrt(1, 2)".'],
    ['pow(2)', 'pow() takes 2 arguments, got 1, at position 1 in "pow(2)".'],
    ['1 / 0', 'Division by zero at position 3 in "1 / 0".'],
    ['5 % (2 - 2)', 'Division by zero at position 3 in "5 % (2 - 2)".'],
    ['sqrt(-1)', '"sqrt(-1)" has no real-number result (for example the square root or logarithm of a negative number).'],
    ['10 ^ 400', 'The result of "10 ^ 400" is too large to represent.'],
    ['   ', 'The expression is empty. Pass something like "2 * (3 + 4)".'],
    [`${'('.repeat(150)}1${')'.repeat(150)}`, 'The expression is nested too deeply. Simplify it.'],
    [`${'-'.repeat(150)}1`, 'The expression is nested too deeply. Simplify it.'],
    [`${'1+'.repeat(600)}1`, 'The expression is longer than 1000 characters. Split it into smaller steps.'],
  ])('%s → an error saying where', async (expression, message) => {
    expect(errorOf(await calculate(expression))).toBe(`calculator failed: ${message}`);
  });

  it('never evaluates code, nor reaches object internals by name', async () => {
    const globalWithFlag = globalThis as { pwned?: boolean };
    expect(errorOf(await calculate('(globalThis.pwned = true)'))).toContain("Unexpected '.' at position 12");
    expect(globalWithFlag.pwned).toBeUndefined();
    expect(errorOf(await calculate('constructor(1)'))).toContain("Unknown name 'constructor' at position 1");
    expect(errorOf(await calculate('__proto__'))).toContain("Unknown name '__proto__' at position 1");
    expect(errorOf(await calculate('toString'))).toContain("Unknown name 'toString' at position 1");
  });

  it('accepts a number sent where the expression string is expected', async () => {
    expect(resultOf(await calculate(42))).toEqual({ expression: '42', result: 42 });
  });
});

describe('get_weather', () => {
  const GEOCODING = 'https://geocoding-api.open-meteo.com/v1/search';
  const FORECAST = 'https://api.open-meteo.com/v1/forecast';
  const json = (body: string, status = 200) => new Response(body, { status, headers: { 'content-type': 'application/json' } });

  /** A fetch that answers Open-Meteo's two endpoints with recorded responses and records every request. */
  const openMeteo = (answers: { geocoding?: () => Response | Promise<Response>; forecast?: () => Response | Promise<Response> }) =>
    vi.fn(async (input: RequestInfo | URL, _init?: RequestInit): Promise<Response> => {
      const url = String(input);
      if (url.startsWith(GEOCODING) && answers.geocoding) return answers.geocoding();
      if (url.startsWith(FORECAST) && answers.forecast) return answers.forecast();
      throw new Error(`unexpected request in test: ${url}`);
    });

  it('geocodes the city, reads the current conditions and describes them', async () => {
    const fetch = openMeteo({
      geocoding: () => json(fixture('open-meteo-geocoding-chennai.json')),
      forecast: () => json(fixture('open-meteo-forecast-chennai.json')),
    });
    const { signal } = new AbortController();
    const run = await tools.runTool('get_weather', { city: 'Chennai' }, { fetch, signal });
    expect(resultOf(run)).toEqual({
      city: 'Chennai',
      region: 'Tamil Nadu',
      country: 'India',
      temperature_c: 36.4,
      feels_like_c: 41.2,
      humidity_pct: 52,
      wind_kmh: 17.6,
      conditions: 'partly cloudy',
      observed_at: '2025-06-01T14:15+05:30',
    });
    expect(fetch.mock.calls.map(([url]) => String(url))).toEqual([
      'https://geocoding-api.open-meteo.com/v1/search?name=Chennai&count=1&language=en&format=json',
      'https://api.open-meteo.com/v1/forecast?latitude=13.08784&longitude=80.27847&current=temperature_2m,relative_humidity_2m,apparent_temperature,weather_code,wind_speed_10m&timezone=auto',
    ]);
    for (const [, init] of fetch.mock.calls) expect(init?.signal).toBe(signal);
  });

  it('encodes the city name in the query', async () => {
    const fetch = openMeteo({ geocoding: () => json(fixture('open-meteo-geocoding-not-found.json')) });
    await tools.runTool('get_weather', { city: 'São Paulo & co' }, { fetch });
    expect(String(fetch.mock.calls[0]?.[0])).toBe(
      'https://geocoding-api.open-meteo.com/v1/search?name=S%C3%A3o%20Paulo%20%26%20co&count=1&language=en&format=json',
    );
  });

  it('uses the part after a comma to pick among places with the same name', async () => {
    const fetch = openMeteo({
      geocoding: () => json(fixture('open-meteo-geocoding-paris.json')),
      forecast: () => json(fixture('open-meteo-forecast-paris-texas.json')),
    });
    const run = await tools.runTool('get_weather', { city: 'Paris, Texas' }, { fetch });
    expect(resultOf(run)).toEqual({
      city: 'Paris',
      region: 'Texas',
      country: 'United States',
      temperature_c: 21.3,
      feels_like_c: 23,
      humidity_pct: 88,
      wind_kmh: 9.4,
      conditions: 'slight rain',
      observed_at: '2025-06-01T03:45-05:00',
    });
    expect(fetch.mock.calls.map(([url]) => String(url))).toEqual([
      'https://geocoding-api.open-meteo.com/v1/search?name=Paris&count=10&language=en&format=json',
      expect.stringContaining('latitude=33.66094&longitude=-95.55551'),
    ]);

    const france = openMeteo({
      geocoding: () => json(fixture('open-meteo-geocoding-paris.json')),
      forecast: () => json(fixture('open-meteo-forecast-chennai.json')),
    });
    await tools.runTool('get_weather', { city: 'Paris, FR' }, { fetch: france });
    expect(String(france.mock.calls[1]?.[0])).toContain('latitude=48.85341&longitude=2.3488');
  });

  it('says when no city matches and suggests checking the spelling', async () => {
    const fetch = openMeteo({ geocoding: () => json(fixture('open-meteo-geocoding-not-found.json')) });
    expect(errorOf(await tools.runTool('get_weather', { city: 'Chenai' }, { fetch }))).toBe(
      "get_weather failed: No city called 'Chenai' was found. Check the spelling, or try the English name of the city or of a larger city nearby.",
    );
  });

  it('refuses an empty city before any request', async () => {
    const fetch = openMeteo({});
    expect(errorOf(await tools.runTool('get_weather', { city: ' , France' }, { fetch }))).toBe(
      'get_weather failed: The city is empty. Call get_weather with a city name such as "Chennai".',
    );
    expect(fetch).not.toHaveBeenCalled();
  });

  it('reports a non-2xx status, with Open-Meteo’s reason when it gives one', async () => {
    const down = openMeteo({ geocoding: () => new Response('upstream timeout', { status: 503 }) });
    expect(errorOf(await tools.runTool('get_weather', { city: 'Chennai' }, { fetch: down }))).toBe(
      'get_weather failed: The weather service (geocoding-api.open-meteo.com) answered 503. Try again later.',
    );
    const rejected = openMeteo({
      geocoding: () => json(fixture('open-meteo-geocoding-chennai.json')),
      forecast: () => json(fixture('open-meteo-forecast-error-400.json'), 400),
    });
    expect(errorOf(await tools.runTool('get_weather', { city: 'Chennai' }, { fetch: rejected }))).toBe(
      'get_weather failed: The weather service (api.open-meteo.com) answered 400: Latitude must be in range of -90 to 90°. Given: 123.4. Try again later.',
    );
  });

  it('reports a network failure and a body that is not JSON', async () => {
    const offline = openMeteo({ geocoding: () => Promise.reject(new TypeError('Failed to fetch')) });
    expect(errorOf(await tools.runTool('get_weather', { city: 'Chennai' }, { fetch: offline }))).toBe(
      'get_weather failed: Could not reach the weather service (geocoding-api.open-meteo.com): Failed to fetch. Try again later.',
    );
    const captive = openMeteo({ geocoding: () => new Response('<html>Sign in to the Wi-Fi</html>', { status: 200 }) });
    expect(errorOf(await tools.runTool('get_weather', { city: 'Chennai' }, { fetch: captive }))).toBe(
      'get_weather failed: The weather service (geocoding-api.open-meteo.com) sent something that is not JSON. Try again later.',
    );
  });

  it('reports a forecast without current conditions, and names an unknown weather code', async () => {
    const empty = openMeteo({
      geocoding: () => json(fixture('open-meteo-geocoding-chennai.json')),
      forecast: () => json('{"latitude":13.125,"longitude":80.25}'),
    });
    expect(errorOf(await tools.runTool('get_weather', { city: 'Chennai' }, { fetch: empty }))).toBe(
      'get_weather failed: The weather service sent no current conditions for Chennai. Try again later.',
    );
    const odd = openMeteo({
      geocoding: () => json(fixture('open-meteo-geocoding-chennai.json')),
      forecast: () => json(fixture('open-meteo-forecast-chennai.json').replace('"weather_code":2', '"weather_code":42')),
    });
    expect(resultOf(await tools.runTool('get_weather', { city: 'Chennai' }, { fetch: odd }))).toMatchObject({
      conditions: 'unknown (WMO code 42)',
    });
  });

  it('reports the stop as an abort, not as a weather failure', async () => {
    const controller = new AbortController();
    const fetch = openMeteo({
      geocoding: () => {
        controller.abort();
        return Promise.reject(new DOMException('The operation was aborted.', 'AbortError'));
      },
    });
    await expect(tools.runTool('get_weather', { city: 'Chennai' }, { fetch, signal: controller.signal })).resolves.toMatchObject({
      ok: false,
      failure: 'aborted',
    });
  });
});
