import { afterEach, describe, expect, it, vi } from 'vitest';
import { byDeadline } from './by-deadline.ts';

describe('byDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives the work when it ends first, and undefined once the deadline passes first', async () => {
    vi.useFakeTimers();
    const never = new Promise<string>(() => undefined);
    const waited = byDeadline(never, Date.now() + 30_000);
    vi.advanceTimersByTime(29_999);
    let settled = false;
    void waited.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    vi.advanceTimersByTime(1);
    await expect(waited).resolves.toBeUndefined();
    await expect(byDeadline(Promise.resolve('read'), Date.now() + 30_000)).resolves.toBe('read');
  });

  it('does not wait at all past the deadline, and drops a failure that comes after it', async () => {
    const failing = Promise.reject(new Error('destroyed'));
    await expect(byDeadline(failing, 0, () => 1)).resolves.toBeUndefined();
    await expect(byDeadline(Promise.reject(new Error('bad PDF')), 10, () => 0)).rejects.toThrow('bad PDF');
  });
});
