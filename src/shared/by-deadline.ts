/**
 * What `work` gives, or `undefined` once `deadline` (a time on `now`'s clock) passes first: for a wait on work
 * that cannot be interrupted from here (a parser in a worker of its own), whose caller then ends it. The work's
 * own failure after the deadline is dropped, since nothing waits on it any more.
 *
 * @param work - the promise waited on.
 * @param deadline - when to stop waiting, on `now`'s clock.
 * @param now - the clock (milliseconds); waiting itself uses the platform's timers.
 */
export function byDeadline<T>(work: Promise<T>, deadline: number, now: () => number = Date.now): Promise<T | undefined> {
  work.catch(() => undefined);
  const left = deadline - now();
  if (left <= 0) return Promise.resolve(undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), left);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
