import { describe, expect, it } from 'vitest';
import { ToolNames, toolName } from './tool-names.ts';

describe('ToolNames', () => {
  it('is undefined when no tools are given, so any well-formed name stands', () => {
    expect(ToolNames.from(undefined)).toBeUndefined();
  });

  it('resolves exact names and names differing only in case, to the registered spelling', () => {
    const names = ToolNames.from(['get_weather', { name: 'webSearch' }, { function: { name: 'get_time' } }]);
    expect(names?.resolve('get_weather')).toBe('get_weather');
    expect(names?.resolve('WebSearch')).toBe('webSearch');
    expect(names?.resolve('GET_TIME')).toBe('get_time');
  });

  it('never resolves a merely similar name', () => {
    const names = ToolNames.from(['get_weather']);
    for (const name of ['get_wether', 'get-weather', 'getWeather', 'get_weather_now', 'launch_missiles']) expect(names?.resolve(name)).toBeUndefined();
  });

  it('refuses to guess between two tools that differ only in case, but still matches each exactly', () => {
    const names = ToolNames.from(['search', 'Search']);
    expect(names?.resolve('SEARCH')).toBeUndefined();
    expect(names?.resolve('Search')).toBe('Search');
  });

  it('resolves nothing when the list is empty (a turn that offered no tools)', () => {
    expect(ToolNames.from([])?.resolve('get_weather')).toBeUndefined();
  });
});

describe('toolName', () => {
  it('reads a bare name, a { name } and an OpenAI envelope', () => {
    expect([toolName('a'), toolName({ name: 'b' }), toolName({ function: { name: 'c' } })]).toEqual(['a', 'b', 'c']);
  });
});
