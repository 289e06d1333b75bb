/**
 * Raw outputs in the shape Qwen3-0.6B produces with thinking off (the prompt already holds the
 * empty think block): the template's `<tool_call>\n{…}\n</tool_call>` layout for calls, plain
 * prose for answers. Scenario tests replay them through the scripted engine.
 */
export const qwen3 = {
  callWeatherChennai: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>',
  callWeatherParis: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  callWeatherAndTime:
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>\n<tool_call>\n{"name": "current_datetime", "arguments": {"time_zone": "Asia/Kolkata"}}\n</tool_call>',
  proseThenCall: 'Let me check the weather for you.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>',
  answerChennai: 'The current weather in Chennai is 31.2°C and partly cloudy.',
  answerChennaiAndTime: 'In Chennai it is 31.2°C and partly cloudy, and the local time is 19:30.',
  guessParis: 'The weather in Paris is usually mild, around 15°C this time of year.',
  answerParis: 'It is 12°C and raining in Paris right now.',
  greeting: 'Hello! How can I help you today?',
  primedContinuationParis: 'get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
  primedContinuationOnGreeting: 'get_weather", "arguments": {"city": "hello"}}\n</tool_call>',
  primedHallucinated: 'weather_lookup", "arguments": {"location": "Paris"}}\n</tool_call>',
  primedGarbage: 'I am sorry, I cannot do that.',
  pseudoRespond: '<tool_call>\n{"name": "respond", "arguments": {"text": "Hello! Nice to meet you."}}\n</tool_call>',
  unknownTool: '<tool_call>\n{"name": "get_forecast", "arguments": {"city": "Chennai"}}\n</tool_call>',
  missingArgument: '<tool_call>\n{"name": "get_weather", "arguments": {}}\n</tool_call>',
  apologizeFailure: 'Sorry, I could not get the weather for Chennai: the weather service is not responding.',
  callDelete: '<tool_call>\n{"name": "delete_note", "arguments": {"id": 7}}\n</tool_call>',
  deleted: 'Note 7 is deleted.',
  notDeleted: 'I did not delete note 7, because you did not approve it.',
  markupWithoutTools: 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Chennai"}}\n</tool_call>',
} as const;
