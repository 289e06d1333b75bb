import { Environment, Interpreter, Template } from '@huggingface/jinja';
import { NexusError, registerErrorClass } from '../shared/errors.ts';
// Python's Jinja2 where the library differs (models were trained on its renders): patched first, bounded after.
import './jinja-python.ts';

/**
 * A chat template is a program from a model's repository: one render of it is bounded by construction, as
 * every work on outside input is (issue 67, L7). A hostile template ran past 120 s at load, and one that always
 * raises built a 33.5 M-character message. The bounds are far past a real template's (the largest of the 76 real
 * ones in tests/fixtures/templates is 16.7 KB; a render of a long tool conversation takes tens of thousands of
 * steps and writes tens of kilobytes).
 */
export const TEMPLATE_LIMITS: Readonly<Required<TemplateLimits> & { sourceChars: number }> = Object.freeze({
  /** Characters of a template's source. */
  sourceChars: 256 * 1024,
  /**
   * Steps of the interpreter (one per expression or statement evaluated, one per item a `range()` makes) in one
   * render: Gemma 4's template takes 20,412 for 61 messages and 20 tools, the most of the real ones.
   */
  steps: 1_000_000,
  /** Milliseconds one render may run. */
  ms: 5_000,
  /** Characters of any text a render builds, its output included. */
  chars: 4_000_000,
  /** Items a `range()` may make. */
  rangeItems: 100_000,
});

/** Bounds of one render, each optional where {@link TEMPLATE_LIMITS} has it (tests give smaller ones). */
export interface TemplateLimits {
  steps?: number;
  ms?: number;
  chars?: number;
  rangeItems?: number;
}

/**
 * A render that fails fast once one render has gone past a bound: a template that does so for one conversation
 * does so for the next, and analysing it renders it dozens of times (the analysis then names the bound it passed).
 */
export function failingFastPastBounds<A extends unknown[], R>(render: (...args: A) => R | Promise<R>): (...args: A) => Promise<R> {
  let passed: TemplateLimitError | undefined;
  return async (...args) => {
    if (passed) throw passed;
    try {
      return await render(...args);
    } catch (error) {
      if (error instanceof TemplateLimitError) passed = error;
      throw error;
    }
  };
}

/** A chat template that went past one of {@link TEMPLATE_LIMITS}: which, and by how much it was allowed. */
export class TemplateLimitError extends NexusError {
  override readonly name = 'TemplateLimitError';
  /** The limit it went past: `sourceChars`, `steps`, `ms`, `chars` or `rangeItems`. */
  readonly limit: string;
  constructor(limit: keyof typeof TEMPLATE_LIMITS, allowed: number, what: string) {
    super(
      `The chat template ${what}, past its bound of ${allowed.toLocaleString('en-US')} (${limit}): it was stopped, as a template of a real model never is.`,
    );
    this.limit = limit;
  }
}
registerErrorClass(TemplateLimitError, 'TemplateLimitError');

interface Budget {
  steps: number;
  readonly deadline: number;
  readonly limits: Required<TemplateLimits>;
  readonly now: () => number;
}

/** The budget of the render running now: renders are synchronous, so one at a time in a thread. */
let current: Budget | undefined;

/**
 * Every step of the interpreter spends from the running render's budget, and any text a step builds is measured:
 * wrapped once, on the interpreter's own class, so nothing a template does escapes it. Renders outside
 * {@link BoundedTemplate} (none in this library) run as before.
 */
const evaluate = Interpreter.prototype.evaluate;
Interpreter.prototype.evaluate = function boundedEvaluate(this: Interpreter, ...args: Parameters<typeof evaluate>) {
  const budget = current;
  if (budget) {
    budget.steps -= 1;
    if (budget.steps < 0) throw new TemplateLimitError('steps', budget.limits.steps, 'took too many steps');
    if ((budget.steps & 63) === 0 && budget.now() > budget.deadline) throw new TemplateLimitError('ms', budget.limits.ms, 'ran too long');
  }
  const value = evaluate.apply(this, args);
  const text = (value as { value?: unknown } | undefined)?.value;
  if (budget && typeof text === 'string' && text.length > budget.limits.chars)
    throw new TemplateLimitError('chars', budget.limits.chars, 'built too long a text');
  return value;
};

/**
 * Inside a bounded render, the globals' `range()` is {@link boundedRange}: the built-in one makes every item before
 * the first step runs (`range(10**9)`), and a render's own variables cannot replace a global.
 */
const set = Environment.prototype.set;
Environment.prototype.set = function boundedSet(this: Environment, ...args: Parameters<typeof set>) {
  const [name] = args;
  return current && name === 'range' ? set.call(this, name, boundedRange(current.limits.rangeItems)) : set.apply(this, args);
};

/** `range()` as Jinja's, refusing to make more than `max` items (the built-in one makes them all first). */
function boundedRange(max: number) {
  return (start: number, stop?: number, step = 1): number[] => {
    const [from, to] = stop === undefined ? [0, start] : [start, stop];
    if (step === 0) throw new Error('range() step must not be zero');
    const count = Math.max(0, Math.ceil((to - from) / step));
    if (!Number.isFinite(count) || count > max) throw new TemplateLimitError('rangeItems', max, `asked range() for ${String(count)} items`);
    // Each item is made before any step runs: they are paid for as steps.
    if (current) {
      current.steps -= count;
      if (current.steps < 0) throw new TemplateLimitError('steps', current.limits.steps, 'took too many steps');
    }
    return Array.from({ length: count }, (_, i) => from + i * step);
  };
}

/**
 * A model's chat template, compiled once, rendered within {@link TEMPLATE_LIMITS}: the same renderer transformers.js
 * uses (`@huggingface/jinja`), with every step counted and every text measured.
 */
export class BoundedTemplate {
  private readonly template: Template;

  /**
   * @param source - the template's Jinja source.
   * @param options - other limits and a clock (tests); {@link TEMPLATE_LIMITS} by default.
   * @throws TemplateLimitError for a source longer than `sourceChars`; the parser's own errors for one it cannot read.
   */
  constructor(
    source: string,
    private readonly options: { limits?: TemplateLimits; now?: () => number } = {},
  ) {
    if (source.length > TEMPLATE_LIMITS.sourceChars)
      throw new TemplateLimitError('sourceChars', TEMPLATE_LIMITS.sourceChars, `is ${source.length.toLocaleString('en-US')} characters long`);
    this.template = new Template(source);
  }

  /**
   * The template rendered with `context` (messages, tools, special tokens…), as `Template.render` renders it.
   * @throws TemplateLimitError past a limit; the template's own errors (`raise_exception`), their message cut short.
   */
  render(context: Record<string, unknown>): string {
    const limits = { ...TEMPLATE_LIMITS, ...this.options.limits };
    const now = this.options.now ?? (() => performance.now());
    const outer = current;
    current = { steps: limits.steps, deadline: now() + limits.ms, limits, now };
    try {
      const text = this.template.render(context);
      if (text.length > limits.chars) throw new TemplateLimitError('chars', limits.chars, 'built too long a text');
      return text;
    } catch (error) {
      // A template's own error may carry any text it built (up to the bound): its first words are enough to say why.
      if (error instanceof Error && !(error instanceof TemplateLimitError) && error.message.length > 500) error.message = `${error.message.slice(0, 500)}…`;
      throw error;
    } finally {
      current = outer;
    }
  }
}
