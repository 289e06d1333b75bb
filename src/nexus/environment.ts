/** Whether this runs in Node (not a page or a worker): the model then runs in-process on the CPU. */
export function isNode(): boolean {
  return typeof process !== 'undefined' && Boolean(process.versions?.node) && typeof window === 'undefined' && typeof self === 'undefined';
}
