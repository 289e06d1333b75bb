import { assertEmbeddingModel, embeddingModelKey } from '../engine/embedding-model.ts';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_SELECTION } from '../tools/tool-selection.ts';
import { ToolRegistry } from '../tools/tool-registry.ts';
import { ToolOffering } from './tool-offering.ts';

function manyTools(n: number): ToolRegistry {
  const registry = new ToolRegistry();
  for (let i = 0; i < n; i++) registry.tool(`tool_${i}`, `Does thing number ${i}`, { value: 'string' }, () => i);
  registry.tool('get_weather', 'Get current weather for a city', { city: 'string' }, () => 'sunny');
  return registry;
}

function offering() {
  const statuses: string[] = [];
  const tools = new ToolOffering({
    runner: {},
    persistentVectors: false,
    onStatus: (status) => statuses.push(status.state),
    describeModel: () => 'model',
    embeddingModels: { check: assertEmbeddingModel, key: embeddingModelKey },
  });
  return { tools, statuses };
}

const settings = { ...DEFAULT_TOOL_SELECTION, semantic: false as const };

describe('ToolOffering', () => {
  it('offers every tool up to the threshold, and says nothing was selected', async () => {
    const { tools } = offering();
    const registry = manyTools(3);
    const offered = await tools.select({ prompt: 'Weather in Paris?', options: {}, registry, history: [], settings });
    expect(offered.registry).toBe(registry);
    expect(offered.options.tools).toBeUndefined();
    expect(tools.lastSelection).toBeUndefined();
  });

  it('above the threshold offers the best matches and find_tools, and remembers the selection', async () => {
    const { tools, statuses } = offering();
    const offered = await tools.select({ prompt: 'Weather in Paris?', options: {}, registry: manyTools(20), history: [], settings });
    expect(offered.options.tools).toContain('get_weather');
    expect(offered.options.tools?.length).toBeLessThan(21);
    expect(offered.registry.names).toContain('find_tools');
    expect(tools.lastSelection?.offered).toEqual(offered.options.tools);
    expect(statuses).toEqual(['off']);
  });

  it('a side conversation gets its own index and leaves the chat’s selection and status alone', async () => {
    const { tools, statuses } = offering();
    await tools.select({ prompt: 'Weather in Paris?', options: { isolated: true }, registry: manyTools(20), history: [], settings });
    expect(tools.lastSelection).toBeUndefined();
    expect(statuses).toEqual([]);
  });
});
