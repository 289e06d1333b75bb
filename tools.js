// Tools the chat offers the model. Plain script, no imports, no exports, no build step:
// the page loads this file with loadTools('./tools.js') and injects `tool`.
//
//   tool(name, description, parameters, handler, { required?, confirm?, readOnly?, alwaysOffer?, group? })
//
// `parameters` is shorthand ({ city: 'string' }) or full JSON Schema per parameter. The handler gets
// the validated arguments and a context: `context.fetch` is the fetch to use (tests replace it) and
// `context.signal` is aborted when the user presses stop. Throw an Error to tell the model what went
// wrong; write the message so the model knows what to do next.
//
//   mcp(url, { headers?, confirm?, label?, callTimeoutMs? })
//
// adds the tools of an MCP server (Streamable HTTP) beside these: mcp('http://127.0.0.1:3001/mcp').
// Its tools that are not marked read-only ask before running unless `confirm: false`.
//
// Edit freely and reload the tools from the page's tools panel.

// ---------------------------------------------------------------------------------------------
// current_datetime
// ---------------------------------------------------------------------------------------------

tool(
  'current_datetime',
  "Get the current date, time and weekday, in the user's time zone or in a given IANA time zone.",
  {
    time_zone: {
      type: 'string',
      description: "IANA time zone such as 'Europe/Paris' or 'Asia/Kolkata'. Omit it for the user's own time zone.",
    },
  },
  ({ time_zone }) => describeNow(new Date(), resolveTimeZone(time_zone)),
  { required: [], readOnly: true },
);

/** The canonical IANA name for what the model wrote, or a thrown error it can act on. */
function resolveTimeZone(requested) {
  const wanted = typeof requested === 'string' ? requested.trim() : '';
  if (wanted === '') return new Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    // Intl accepts any case and every alias. It reports the canonical spelling, but its idea of
    // canonical can be an old alias ('Asia/Kolkata' comes back as 'Asia/Calcutta' in some engines),
    // so the resolved name is used only to fix the case of what was asked.
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: wanted }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === wanted.toLowerCase() ? resolved : wanted;
  } catch {
    // Models often pass a city ('Tokyo', 'New York'). Map it only when a zone is named exactly
    // after it: a guess at the wrong zone would be a confidently wrong answer.
    const city = wanted.replace(/\s+/g, '_').toLowerCase();
    const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    const matches = zones.filter((zone) => zone.toLowerCase().split('/').pop() === city);
    if (matches.length === 1) return matches[0];
    throw new Error(`Unknown time zone '${wanted}'. Use an IANA name such as 'Europe/Paris' or 'Asia/Kolkata'.`);
  }
}

function describeNow(now, timeZone) {
  const parts = {};
  const numeric = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    weekday: 'long',
  });
  for (const part of numeric.formatToParts(now)) parts[part.type] = part.value;

  // The offset is the difference between the wall-clock time read as UTC and the real instant.
  const wallClock = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  const offsetMinutes = Math.round((wallClock - Math.floor(now.getTime() / 1000) * 1000) / 60000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const pad = (n) => String(n).padStart(2, '0');
  const utcOffset = `${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const time = `${parts.hour}:${parts.minute}:${parts.second}`;

  return {
    iso: `${date}T${time}${utcOffset}`,
    date,
    time,
    weekday: parts.weekday,
    local: new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'short' }).format(now),
    time_zone: timeZone,
    utc_offset: utcOffset,
  };
}

// ---------------------------------------------------------------------------------------------
// calculator
// ---------------------------------------------------------------------------------------------
// A small expression parser (recursive descent). Never eval: the expression comes from the model,
// which copies text from web pages and user messages.

tool(
  'calculator',
  'Evaluate an arithmetic expression exactly, e.g. "(12.5 * 4) / 3" or "sqrt(2) ^ 2". Use it for any arithmetic instead of computing in your head.',
  {
    expression: {
      type: 'string',
      description:
        'Numbers, + - * / % ^ and parentheses; functions sqrt, abs, round, floor, ceil, sin, cos, tan, asin, acos, atan (radians), ln (natural log), log (base 10), log2, exp, pow, min, max; constants pi, e.',
    },
  },
  ({ expression }) => ({ expression, result: calculate(expression) }),
  { readOnly: true },
);

const CALC_FUNCTIONS = {
  sqrt: [1, Math.sqrt],
  abs: [1, Math.abs],
  round: [1, Math.round],
  floor: [1, Math.floor],
  ceil: [1, Math.ceil],
  sin: [1, Math.sin],
  cos: [1, Math.cos],
  tan: [1, Math.tan],
  asin: [1, Math.asin],
  acos: [1, Math.acos],
  atan: [1, Math.atan],
  ln: [1, Math.log],
  log: [1, Math.log10],
  log2: [1, Math.log2],
  exp: [1, Math.exp],
  pow: [2, Math.pow],
  min: [-1, Math.min], // -1: one or more arguments
  max: [-1, Math.max],
};
const CALC_CONSTANTS = { pi: Math.PI, π: Math.PI, e: Math.E };
const CALC_MAX_LENGTH = 1000;
const CALC_MAX_DEPTH = 100;

/** Evaluates an arithmetic expression; throws an Error naming the position of any mistake. */
function calculate(expression) {
  const source = String(expression);
  if (source.trim() === '') throw new Error('The expression is empty. Pass something like "2 * (3 + 4)".');
  if (source.length > CALC_MAX_LENGTH) throw new Error(`The expression is longer than ${CALC_MAX_LENGTH} characters. Split it into smaller steps.`);
  const tokens = tokenize(source);
  let index = 0;
  let depth = 0;

  const peek = () => tokens[index];
  const next = () => tokens[index++];
  const fail = (token, expected) => {
    const found = token.type === 'end' ? 'end of the expression' : `'${token.text}'`;
    throw new Error(`Unexpected ${found} at position ${token.position + 1} in "${source}"${expected ? `: expected ${expected}` : ''}.`);
  };
  const expect = (op) => {
    const token = next();
    if (token.op !== op) fail(token, `'${op}'`);
  };

  // expression := term (('+' | '-') term)*
  function parseExpression() {
    if (++depth > CALC_MAX_DEPTH) throw new Error('The expression is nested too deeply. Simplify it.');
    let value = parseTerm();
    while (peek().op === '+' || peek().op === '-') {
      const operator = next().op;
      const right = parseTerm();
      value = operator === '+' ? value + right : value - right;
    }
    depth -= 1;
    return value;
  }

  // term := unary (('*' | '/' | '%') unary)*
  function parseTerm() {
    let value = parseUnary();
    while (peek().type === 'operator' && '*/%'.includes(peek().op)) {
      const token = next();
      const right = parseUnary();
      if (token.op === '*') value *= right;
      else if (right === 0) throw new Error(`Division by zero at position ${token.position + 1} in "${source}".`);
      else value = token.op === '/' ? value / right : value % right;
    }
    return value;
  }

  // unary := ('-' | '+') unary | power      (so -2^2 is -(2^2), as in mathematics)
  function parseUnary() {
    if (peek().op === '-' || peek().op === '+') {
      const sign = next().op;
      if (++depth > CALC_MAX_DEPTH) throw new Error('The expression is nested too deeply. Simplify it.');
      const value = parseUnary();
      depth -= 1;
      return sign === '-' ? -value : value;
    }
    return parsePower();
  }

  // power := primary ('^' unary)?            (right-associative: 2^3^2 is 2^9)
  function parsePower() {
    const base = parsePrimary();
    if (peek().op !== '^') return base;
    next();
    return base ** parseUnary();
  }

  // primary := number | constant | function '(' expression (',' expression)* ')' | '(' expression ')'
  function parsePrimary() {
    const token = next();
    if (token.type === 'number') return token.value;
    if (token.op === '(') {
      const value = parseExpression();
      expect(')');
      return value;
    }
    if (token.type === 'name') {
      const name = token.text.toLowerCase();
      if (Object.hasOwn(CALC_CONSTANTS, name)) return CALC_CONSTANTS[name];
      if (!Object.hasOwn(CALC_FUNCTIONS, name)) {
        throw new Error(
          `Unknown name '${token.text}' at position ${token.position + 1} in "${source}". Functions: ${Object.keys(CALC_FUNCTIONS).join(', ')}; constants: pi, e.`,
        );
      }
      const [arity, fn] = CALC_FUNCTIONS[name];
      if (peek().op !== '(') fail(peek(), `'(' after ${name}`);
      next();
      const args = [parseExpression()];
      while (peek().op === ',') {
        next();
        args.push(parseExpression());
      }
      expect(')');
      if (arity !== -1 && args.length !== arity) {
        throw new Error(`${name}() takes ${arity} argument${arity === 1 ? '' : 's'}, got ${args.length}, at position ${token.position + 1} in "${source}".`);
      }
      return fn(...args);
    }
    return fail(token, "a number, a name or '('");
  }

  const result = parseExpression();
  if (peek().type !== 'end') fail(peek());
  if (Number.isNaN(result)) throw new Error(`"${source}" has no real-number result (for example the square root or logarithm of a negative number).`);
  if (!Number.isFinite(result)) throw new Error(`The result of "${source}" is too large to represent.`);
  // Integers are exact up to 2^53. Other results are rounded to 15 significant digits, which hides
  // binary noise (0.1 + 0.2 gives 0.30000000000000004) and keeps every digit a double really holds.
  return Number.isSafeInteger(result) ? result : Number(result.toPrecision(15));
}

/** Typed spellings of the operators; each token keeps the text as typed for error messages. */
const CALC_OPERATOR_ALIASES = { '×': '*', '·': '*', '÷': '/', '−': '-', '–': '-', '**': '^' };

function tokenize(source) {
  const tokens = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const number = /^(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/i.exec(rest);
    if (number) {
      tokens.push({ type: 'number', text: number[0], op: number[0], value: Number(number[0]), position: i });
      i += number[0].length;
      continue;
    }
    const word = /^(?:[a-z_]+|π)/i.exec(rest);
    if (word) {
      // Digits belong to the name only for a function that has them (log2); otherwise "2x3" would
      // read as the unknown name "x3".
      const withDigits = /^[a-z_]+\d+/i.exec(rest);
      const text = withDigits && Object.hasOwn(CALC_FUNCTIONS, withDigits[0].toLowerCase()) ? withDigits[0] : word[0];
      // A lone `x` is the multiplication sign people type ("3 x 4", "3x4").
      const isTimes = text.toLowerCase() === 'x';
      tokens.push({ type: isTimes ? 'operator' : 'name', text, op: isTimes ? '*' : text, position: i });
      i += text.length;
      continue;
    }
    const symbol = rest.startsWith('**') ? '**' : rest[0];
    if ('+-*/%^(),'.includes(symbol) || Object.hasOwn(CALC_OPERATOR_ALIASES, symbol)) {
      tokens.push({ type: 'operator', text: symbol, op: CALC_OPERATOR_ALIASES[symbol] ?? symbol, position: i });
      i += symbol.length;
      continue;
    }
    throw new Error(`Unexpected '${symbol}' at position ${i + 1} in "${source}". Use numbers, + - * / % ^, parentheses and functions such as sqrt().`);
  }
  tokens.push({ type: 'end', text: '', op: '', position: source.length });
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// get_weather
// ---------------------------------------------------------------------------------------------
// Open-Meteo needs no key. Geocoding turns the city into coordinates, the forecast API reports the
// current conditions there.

tool(
  'get_weather',
  'Get the current weather for a city: temperature, feels-like, humidity, wind and conditions.',
  { city: { type: 'string', description: "City name, optionally with its country: 'Chennai', 'Paris, France'." } },
  async ({ city }, { fetch, signal }) => {
    const place = await findPlace(city, fetch, signal);
    const forecast = await getJson(
      fetch,
      signal,
      `https://api.open-meteo.com/v1/forecast?latitude=${place.latitude}&longitude=${place.longitude}` +
        '&current=temperature_2m,relative_humidity_2m,apparent_temperature,weather_code,wind_speed_10m&timezone=auto',
    );
    const current = forecast.current;
    if (!current || typeof current.temperature_2m !== 'number') {
      throw new Error(`The weather service sent no current conditions for ${place.name}. Try again later.`);
    }
    return {
      city: place.name,
      ...(place.admin1 && place.admin1 !== place.name ? { region: place.admin1 } : {}),
      country: place.country ?? place.country_code ?? '',
      temperature_c: current.temperature_2m,
      feels_like_c: current.apparent_temperature,
      humidity_pct: current.relative_humidity_2m,
      wind_kmh: current.wind_speed_10m,
      conditions: WEATHER_CODES[current.weather_code] ?? `unknown (WMO code ${current.weather_code})`,
      observed_at: `${current.time}${formatOffset(forecast.utc_offset_seconds)}`,
    };
  },
  { readOnly: true },
);

/** The best geocoding match for "City" or "City, Country"; throws when there is none. */
async function findPlace(query, fetch, signal) {
  // Open-Meteo matches names only, so "Paris, France" finds nothing. Search for the name and use
  // the rest to pick among the candidates.
  const [name, ...qualifiers] = query.split(',').map((part) => part.trim());
  const qualifier = qualifiers.join(' ').toLowerCase();
  if (!name) throw new Error('The city is empty. Call get_weather with a city name such as "Chennai".');
  const data = await getJson(
    fetch,
    signal,
    `https://geocoding-api.open-meteo.com/v1/search?name=${encodeURIComponent(name)}&count=${qualifier ? 10 : 1}&language=en&format=json`,
  );
  const results = Array.isArray(data.results) ? data.results : [];
  const fits = (place) => [place.country, place.country_code, place.admin1].some((value) => typeof value === 'string' && value.toLowerCase() === qualifier);
  const place = (qualifier && results.find(fits)) || results[0];
  if (!place) {
    throw new Error(`No city called '${query}' was found. Check the spelling, or try the English name of the city or of a larger city nearby.`);
  }
  return place;
}

async function getJson(fetch, signal, url) {
  const service = new URL(url).hostname;
  let response;
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json' } });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new Error(`Could not reach the weather service (${service}): ${error.message}. Try again later.`);
  }
  if (!response.ok) {
    // Open-Meteo explains a rejected request in a JSON `reason`.
    const reason = await response.json().then(
      (body) => (typeof body?.reason === 'string' ? body.reason.replace(/\.\s*$/, '') : ''),
      () => '',
    );
    throw new Error(`The weather service (${service}) answered ${response.status}${reason ? `: ${reason}` : ''}. Try again later.`);
  }
  try {
    return await response.json();
  } catch {
    throw new Error(`The weather service (${service}) sent something that is not JSON. Try again later.`);
  }
}

function formatOffset(seconds) {
  if (typeof seconds !== 'number') return '';
  const sign = seconds < 0 ? '-' : '+';
  const minutes = Math.round(Math.abs(seconds) / 60);
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** WMO weather interpretation codes, as Open-Meteo documents them. */
const WEATHER_CODES = {
  0: 'clear sky',
  1: 'mainly clear',
  2: 'partly cloudy',
  3: 'overcast',
  45: 'fog',
  48: 'depositing rime fog',
  51: 'light drizzle',
  53: 'moderate drizzle',
  55: 'dense drizzle',
  56: 'light freezing drizzle',
  57: 'dense freezing drizzle',
  61: 'slight rain',
  63: 'moderate rain',
  65: 'heavy rain',
  66: 'light freezing rain',
  67: 'heavy freezing rain',
  71: 'slight snowfall',
  73: 'moderate snowfall',
  75: 'heavy snowfall',
  77: 'snow grains',
  80: 'slight rain showers',
  81: 'moderate rain showers',
  82: 'violent rain showers',
  85: 'slight snow showers',
  86: 'heavy snow showers',
  95: 'thunderstorm',
  96: 'thunderstorm with slight hail',
  99: 'thunderstorm with heavy hail',
};
