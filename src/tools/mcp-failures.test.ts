import { describe, expect, it } from 'vitest';
import { describeFailure, httpStatus } from './mcp-failures.ts';

describe('a failed MCP request in one line', () => {
  const relayBody = JSON.stringify({ error: 'unreachable', message: 'The MCP server "notes" cannot be reached from the app server (connection refused).' });

  it('shows what the relay said, whether the SDK kept the body in its message (v1) or in its data (v2)', () => {
    const v1 = Object.assign(new Error(`Error POSTing to endpoint (HTTP 502): ${relayBody}`), { code: 502 });
    const v2 = Object.assign(new Error('Version negotiation failed: the server answered the probe with HTTP 502'), {
      code: 'ERA_NEGOTIATION_FAILED',
      status: 502,
      data: { status: 502, text: relayBody },
    });
    for (const error of [v1, v2]) expect(describeFailure(error)).toBe('The MCP server "notes" cannot be reached from the app server (connection refused)');
  });

  it('names the status of an answer that is not MCP, and never takes a JSON-RPC code for one', () => {
    expect(describeFailure(Object.assign(new Error('Error POSTing to endpoint: <html>Not found</html>'), { status: 404 }))).toBe(
      'the server answered HTTP 404, not as an MCP server',
    );
    expect(httpStatus(Object.assign(new Error('Method not found'), { code: -32601 }))).toBeUndefined();
    expect(httpStatus({ status: 401 })).toBe(401);
    expect(httpStatus({ code: 404 })).toBe(404);
  });
});
