// Tools of the scripted harness page: deterministic, offline, one of them needs approval.

tool(
  'get_weather',
  'Get the current weather for a city: temperature, conditions and humidity.',
  { city: { type: 'string', description: "City name, such as 'Chennai'." } },
  ({ city }) => ({ city, temperature_c: city === 'Paris' ? 18.2 : 31.4, conditions: city === 'Paris' ? 'light rain' : 'partly cloudy', humidity_pct: 70 }),
  { readOnly: true },
);

tool(
  'send_email',
  "Send an email on the user's behalf.",
  { to: { type: 'string', description: 'Address' }, subject: 'string', body: 'string' },
  ({ to }) => `Sent to ${to} (message id MSG-42).`,
  { confirm: true },
);
