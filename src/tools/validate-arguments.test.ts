import { describe, expect, it } from 'vitest';
import { ToolArgumentsError } from './errors.ts';
import { expandParameters, type ParametersInput } from './tool-schema.ts';
import { assertValidArguments, validateArguments, type ArgumentsResult } from './validate-arguments.ts';

const target = (name: string, parameters: ParametersInput, required?: readonly string[]) => ({
  name,
  parameters: expandParameters(name, parameters, required),
});

const getWeather = target('get_weather', { city: 'string' });
const forecast = target(
  'forecast',
  {
    city: 'string',
    days: { type: 'integer', minimum: 1, maximum: 16 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
    hourly: 'boolean',
    lat: 'number',
  },
  ['city'],
);

const ok = (args: Record<string, unknown>): ArgumentsResult => ({ ok: true, arguments: args });

describe('validateArguments: accepted as written', () => {
  it('passes valid arguments through as a fresh object', () => {
    const raw = { city: 'Chennai' };
    const result = validateArguments(getWeather, raw);
    expect(result).toEqual(ok({ city: 'Chennai' }));
    expect(result.ok && result.arguments).not.toBe(raw);
  });

  it('accepts a JSON string of the arguments, and nothing at all for a tool without parameters', () => {
    expect(validateArguments(getWeather, '{"city": "Pune"}')).toEqual(ok({ city: 'Pune' }));
    const ping = target('ping', {});
    expect(validateArguments(ping, undefined)).toEqual(ok({}));
    expect(validateArguments(ping, null)).toEqual(ok({}));
    expect(validateArguments(ping, '')).toEqual(ok({}));
  });
});

describe('validateArguments: coercions small models need', () => {
  it('reads "5" as a number or integer', () => {
    expect(validateArguments(forecast, { city: 'Oslo', days: '5', lat: '59.91' })).toEqual(ok({ city: 'Oslo', days: 5, lat: 59.91, unit: 'celsius' }));
    expect(validateArguments(forecast, { city: 'Oslo', lat: ' -1.5e2 ' })).toMatchObject(ok({ lat: -150 }));
  });

  it('refuses a number that is not the one written: "1e309" (Infinity), an integer string past 2^53 (issue 41)', () => {
    expect(validateArguments(forecast, { city: 'Oslo', lat: '1e309' }).ok).toBe(false);
    const big = target('t', { id: 'integer' });
    expect(validateArguments(big, { id: '9007199254740993' }).ok).toBe(false);
    expect(validateArguments(big, { id: '9007199254740991' })).toEqual(ok({ id: 9007199254740991 }));
  });

  it('refuses a JSON number the parse already changed: a whole number past 2^53 (rounded) or 1e999 (Infinity), wherever it sits, and never turns one into a string (issue 41)', () => {
    const big = target('t', { id: 'integer', order: 'string', lat: 'number', ids: { type: 'array', items: { type: 'integer' } } });
    const rounded = JSON.parse('{"id": 12345678901234567890}') as Record<string, unknown>;
    const result = validateArguments(big, rounded);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^Invalid arguments for t: 'id' is a whole number past 9007199254740991, which cannot be kept exactly/);
    expect(validateArguments(big, JSON.parse('{"ids": [1, 9007199254740993]}')).ok).toBe(false);
    expect(validateArguments(big, JSON.parse('{"lat": 1e999}'))).toMatchObject({ ok: false, message: expect.stringContaining("'lat' is not a finite number") });
    const asString = validateArguments(big, JSON.parse('{"order": 12345678901234567890}'));
    expect(asString.ok).toBe(false);
    expect(JSON.stringify(asString)).not.toContain('12345678901234567000');
    expect(validateArguments(big, { id: 9007199254740991, order: 42, lat: -1.5e-300, ids: [] })).toEqual(
      ok({ id: 9007199254740991, order: '42', lat: -1.5e-300, ids: [] }),
    );
  });

  it('reads "true"/"false" as booleans, in any case', () => {
    expect(validateArguments(forecast, { city: 'Oslo', hourly: 'true' })).toMatchObject(ok({ hourly: true }));
    expect(validateArguments(forecast, { city: 'Oslo', hourly: 'False' })).toMatchObject(ok({ hourly: false }));
  });

  it('turns a number or boolean into its string where a string is expected', () => {
    expect(validateArguments(getWeather, { city: 10115 })).toEqual(ok({ city: '10115' }));
    expect(validateArguments(target('t', { flag: 'string' }), { flag: true })).toEqual(ok({ flag: 'true' }));
  });

  it('takes the declared spelling of an enum value written in another case', () => {
    expect(validateArguments(forecast, { city: 'Oslo', unit: 'Fahrenheit' })).toMatchObject(ok({ unit: 'fahrenheit' }));
    expect(validateArguments(target('t', { level: { enum: [1, 2, 3] } }), { level: '2' })).toEqual(ok({ level: 2 }));
  });

  it('renames a key written in another case and drops unknown keys', () => {
    expect(validateArguments(getWeather, { City: 'Lima', reason: 'the user asked', units: 'metric' })).toEqual(ok({ city: 'Lima' }));
  });

  it('treats null, and "" for a non-string parameter, as not given', () => {
    expect(validateArguments(forecast, { city: 'Oslo', days: null, hourly: '', unit: null })).toEqual(ok({ city: 'Oslo', unit: 'celsius' }));
  });

  it('fills declared defaults, without sharing them between calls', () => {
    const withList = target('t', { tags: { type: 'array', items: { type: 'string' }, default: ['news'] } });
    const first = validateArguments(withList, {});
    const second = validateArguments(withList, {});
    expect(first).toEqual(ok({ tags: ['news'] }));
    expect(first.ok && second.ok && first.arguments.tags).not.toBe(second.ok && second.arguments.tags);
  });

  it('decodes arrays and objects sent as JSON strings, and wraps a lone value in an array', () => {
    const search = target('web_search', { queries: 'string[]', options: { type: 'object', properties: { safe: 'boolean' } } }, ['queries']);
    expect(validateArguments(search, { queries: '["a", "b"]', options: '{"safe": "true"}' })).toEqual(ok({ queries: ['a', 'b'], options: { safe: true } }));
    expect(validateArguments(search, { queries: 'latest qwen release' })).toEqual(ok({ queries: ['latest qwen release'] }));
    expect(validateArguments(target('t', { ids: 'integer[]' }), { ids: ['1', 2] })).toEqual(ok({ ids: [1, 2] }));
  });

  it('coerces inside nested objects, dropping their unknown keys too', () => {
    const book = target('book', { guest: { type: 'object', properties: { name: 'string', age: 'integer' } } });
    expect(validateArguments(book, { guest: { name: 'Ada', age: '36', vip: true } })).toEqual(ok({ guest: { name: 'Ada', age: 36 } }));
  });

  it('keeps unknown keys when the schema allows additional properties', () => {
    const open = target('t', { type: 'object', properties: { a: 'string' }, additionalProperties: true });
    expect(validateArguments(open, { a: 'x', b: 2 })).toEqual(ok({ a: 'x', b: 2 }));
  });
});

describe('validateArguments: one actionable line when it cannot be fixed', () => {
  const message = (result: ArgumentsResult) => (result.ok ? 'accepted' : result.message);

  it('names a missing required argument, its type and the call to make', () => {
    expect(message(validateArguments(getWeather, {}))).toBe(
      'Invalid arguments for get_weather: missing required argument \'city\' (string). Call get_weather again with {"city": "..."}.',
    );
  });

  it('repeats good values and lists several problems in one line', () => {
    const trip = target('plan_trip', { from: 'string', to: 'string', days: 'integer' });
    expect(message(validateArguments(trip, { from: 'Paris' }))).toBe(
      "Invalid arguments for plan_trip: missing required argument 'to' (string); missing required argument 'days' (integer). " +
        'Call plan_trip again with {"from": "Paris", "to": "...", "days": <integer>}.',
    );
  });

  it('refuses an object or array where a string is expected', () => {
    expect(message(validateArguments(getWeather, { city: { name: 'Paris' } }))).toBe(
      'Invalid arguments for get_weather: argument \'city\' must be a string, not an object. Call get_weather again with {"city": "..."}.',
    );
    expect(message(validateArguments(getWeather, { city: ['Paris', 'Rome'] }))).toContain("argument 'city' must be a string, not an array");
  });

  it('refuses text that is not a number, and a fraction for an integer', () => {
    expect(message(validateArguments(forecast, { city: 'Oslo', days: 'three' }))).toBe(
      'Invalid arguments for forecast: argument \'days\' must be an integer, not the string "three". Call forecast again with {"city": "Oslo", "days": <integer>, "unit": "celsius"}.',
    );
    expect(message(validateArguments(forecast, { city: 'Oslo', days: 2.5 }))).toContain("argument 'days' must be an integer, not the number 2.5");
    expect(message(validateArguments(forecast, { city: 'Oslo', days: '2.5' }))).toContain('argument \'days\' must be an integer, not the string "2.5"');
  });

  it('lists the allowed values of an enum', () => {
    expect(message(validateArguments(forecast, { city: 'Oslo', unit: 'kelvin' }))).toBe(
      'Invalid arguments for forecast: argument \'unit\' must be one of "celsius", "fahrenheit", not "kelvin". Call forecast again with {"city": "Oslo", "unit": "..."}.',
    );
  });

  it('reports other schema keywords in the validator’s words', () => {
    expect(message(validateArguments(forecast, { city: 'Oslo', days: 0 }))).toContain("argument 'days' is invalid: 0 is less than 1");
    expect(message(validateArguments(forecast, { city: 'Oslo', days: 30 }))).toContain("argument 'days' is invalid: 30 is greater than 16");
  });

  it('names the position inside arrays and nested objects', () => {
    const ids = target('t', { ids: 'integer[]' });
    expect(message(validateArguments(ids, { ids: [1, 'two'] }))).toContain('argument \'ids[1]\' must be an integer, not the string "two"');
    // A nested full schema keeps JSON Schema's meaning: only what it lists in `required` is required.
    const book = target('book', { guest: { type: 'object', properties: { name: 'string' }, required: ['name'] } });
    expect(message(validateArguments(book, { guest: {} }))).toContain("missing required argument 'guest.name' (string)");
  });

  it('refuses arguments that are not an object at all', () => {
    expect(message(validateArguments(getWeather, ['Paris']))).toBe(
      'Invalid arguments for get_weather: the arguments must be a JSON object, got an array. Call get_weather again with {"city": "..."}.',
    );
    expect(message(validateArguments(getWeather, 'Paris'))).toContain('the arguments must be a JSON object, got the string "Paris"');
  });

  it('caps the list of problems so the line stays short', () => {
    const many = target('many', { a: 'string', b: 'string', c: 'string', d: 'string', e: 'string' });
    const text = message(validateArguments(many, {}));
    expect(text).toContain("'a' (string); missing required argument 'b' (string); missing required argument 'c' (string) (and 2 more).");
    expect(text.split('\n')).toHaveLength(1);
  });
});

describe('assertValidArguments', () => {
  it('returns the cleaned arguments', () => {
    expect(assertValidArguments(getWeather, { city: 7 })).toEqual({ city: '7' });
  });

  it('throws ToolArgumentsError with the same line', () => {
    expect(() => assertValidArguments(getWeather, {})).toThrow(ToolArgumentsError);
    try {
      assertValidArguments(getWeather, {});
    } catch (error) {
      expect(error).toMatchObject({
        name: 'ToolArgumentsError',
        toolName: 'get_weather',
        message: expect.stringContaining("missing required argument 'city' (string)"),
      });
    }
  });
});
