import { describe, expect, it } from 'vitest';
import { callAsTask, type RawRequest } from './mcp-tasks.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

/**
 * The task calls' bookkeeping against a scripted connection (what each method answers); the real exchange, a
 * form mid-task and Stop among it, is tests/tools/real-mcp-servers.test.ts's, with server-everything.
 */
function scripted(answers: Record<string, (params: Record<string, unknown>) => unknown>) {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  const request: RawRequest = async (message) => {
    sent.push(message);
    return answers[message.method]?.(message.params);
  };
  return { request, sent };
}

describe('calling a tool as an MCP task', () => {
  it('calls with task, then awaits tasks/result for the task the server made', async () => {
    const { request, sent } = scripted({
      'tools/call': () => ({ task: { taskId: 't1', status: 'working' } }),
      'tasks/result': () => ({ content: [{ type: 'text', text: 'done' }] }),
    });
    expect(await callAsTask(request, { tool: 'research', args: { topic: 'x' } }, { timeout: TIMEOUTS.reacts })).toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
    expect(sent.map((m) => m.method)).toEqual(['tools/call', 'tasks/result']);
    expect(sent[0]?.params).toMatchObject({ name: 'research', arguments: { topic: 'x' }, task: { ttl: 600_000 } });
    expect(sent[1]?.params).toEqual({ taskId: 't1' });
  });

  it('takes a result given at once, and says so where the server gives neither a task nor a result', async () => {
    const now = scripted({ 'tools/call': () => ({ content: [{ type: 'text', text: 'at once' }] }) });
    expect(await callAsTask(now.request, { tool: 'research', args: {} }, { timeout: TIMEOUTS.reacts })).toEqual({
      content: [{ type: 'text', text: 'at once' }],
    });
    const odd = scripted({ 'tools/call': () => ({}) });
    await expect(callAsTask(odd.request, { tool: 'research', args: {} }, { timeout: TIMEOUTS.reacts })).rejects.toThrow(
      'research was called as a task, and the server answered with neither a task nor a result.',
    );
  });

  it('cancels the task on the server when waiting for its result fails (a timeout), and says why', async () => {
    const { request, sent } = scripted({
      'tools/call': () => ({ task: { taskId: 't2' } }),
      'tasks/result': () => {
        throw new Error('Request timed out');
      },
    });
    await expect(callAsTask(request, { tool: 'research', args: {} }, { timeout: TIMEOUTS.reacts })).rejects.toThrow('Request timed out');
    expect(sent.at(-1)).toEqual({ method: 'tasks/cancel', params: { taskId: 't2' } });
  });
});
