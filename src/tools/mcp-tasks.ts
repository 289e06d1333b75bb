/**
 * MCP tasks (SEP-1686, the 2025-11-25 revision) from the client's side: a tool that runs only as a task is called
 * with `task`, and its result awaited with `tasks/result`. The SDK's v2 client has no runtime for these methods, so
 * they go as plain requests through the connection's own `request`.
 */

/** How long a task's result is kept on the server, asked with each task call (SEP-1686's `ttl`). */
const TASK_TTL_MS = 10 * 60_000;

/** A JSON-RPC request through the connection, its result not checked (the caller reads it). */
export type RawRequest = (
  message: { method: string; params: Record<string, unknown> },
  options?: {
    signal?: AbortSignal;
    timeout?: number;
    onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
    resetTimeoutOnProgress?: boolean;
  },
) => Promise<unknown>;

/**
 * Calls `tool` as a task and resolves with its result: `tasks/result`, which the server answers once the task is
 * done — what the task asks of the user meanwhile (a form) arrives on that request's stream and is answered as any
 * elicitation. Stopped (`signal`) or past `timeout`, the task is cancelled on the server (`tasks/cancel`).
 * A server that answers the call with the result itself is taken at its word.
 */
export async function callAsTask(
  request: RawRequest,
  call: { tool: string; args: Record<string, unknown> },
  options: { signal?: AbortSignal; timeout: number; onProgress?: (progress: { progress: number; total?: number; message?: string }) => void },
): Promise<unknown> {
  const { signal, timeout } = options;
  const asked = { ...(signal ? { signal } : {}), timeout };
  const created = (await request({ method: 'tools/call', params: { name: call.tool, arguments: call.args, task: { ttl: TASK_TTL_MS } } }, asked)) as {
    task?: { taskId?: unknown };
    content?: unknown;
  };
  const taskId = created.task?.taskId;
  if (typeof taskId !== 'string') {
    if (Array.isArray(created.content)) return created;
    throw new Error(`${call.tool} was called as a task, and the server answered with neither a task nor a result.`);
  }
  const cancel = () => void request({ method: 'tasks/cancel', params: { taskId } }).catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await request(
      { method: 'tasks/result', params: { taskId } },
      { ...asked, ...(options.onProgress ? { onprogress: options.onProgress } : {}), resetTimeoutOnProgress: true },
    );
  } catch (error) {
    if (!signal?.aborted) cancel();
    throw error;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}
