/**
 * Python's Jinja2 where `@huggingface/jinja` differs from it, on the interpreter's own class: models were trained
 * on prompts Jinja2 rendered (transformers' `apply_chat_template`), so a template must render here as it did
 * there, byte for byte. Each difference was found rendering the fixtures' 76 real templates through both
 * (tests/fixtures/jinja-parity.test.ts) and each has a test (jinja-python.test.ts); the patches are upstreamable
 * as they stand. Loaded once, with the bounded renderer.
 *
 * - A `for` loop keeps what an iteration wrote before `{% continue %}` or `{% break %}` (the library dropped it:
 *   a real template lost its whole system turn), iterates a string's characters, and iterates an undefined value
 *   as nothing. Its `else` runs as Jinja2's does: unless an iteration ran to its end.
 * - An undefined value is an empty sequence to the filters that take one (`length` is 0, `selectattr` and `map`
 *   give nothing, `join` gives '') and to the `sequence` and `iterable` tests, as Jinja2's `Undefined` is; `none`
 *   gives nothing to `map`, `select`, `reject`, `selectattr` and `rejectattr`, which Jinja2 guards with `if seq`.
 * - `string` of a mapping or a list is Python's `str()` of it (`{'a': 1, 'b': True}`).
 * - `+` of a string and something else fails, as Python's does, instead of writing `[object Map]` into a prompt;
 *   `+` of text marked `|safe` escapes the other side for HTML, as markupsafe's `Markup` does.
 */
import { Environment, Interpreter } from '@huggingface/jinja';
import { pythonRepr } from './python-json.ts';

/** A runtime value of the interpreter, as far as these patches read it. */
interface Value {
  type: string;
  value: unknown;
}
type ValueClass = new (value?: unknown) => Value;
/** An AST node, as far as these patches read it. */
interface Node {
  type: string;
  [key: string]: unknown;
}

/** The interpreter's value classes are not exported: an environment converts a JS value to each of them. */
const probe = new Environment();
for (const [name, value] of Object.entries({ a: [], s: '', o: {}, i: 1 })) probe.set(name, value);
const classOf = (name: string) => (probe.lookupVariable(name) as unknown as { constructor: ValueClass }).constructor;
const ArrayValue = classOf('a');
const StringValue = classOf('s');
const ObjectValue = classOf('o');
const IntegerValue = classOf('i');
const UndefinedValue = classOf('missing');
/** Whether a runtime value is of a class (a plain test: the classes share one shape, so no narrowing). */
const is = (value: unknown, type: ValueClass): boolean => value instanceof type;
const BooleanValue = (() => {
  probe.set('b', true);
  return classOf('b');
})();

/** The loop controls' error classes, as the interpreter throws them for `{% break %}` and `{% continue %}`. */
function controlClass(type: 'Break' | 'Continue'): new () => Error {
  try {
    new Interpreter(probe).evaluate({ type } as never, probe);
  } catch (control) {
    return (control as { constructor: new () => Error }).constructor;
  }
  throw new Error(`@huggingface/jinja no longer throws for ${type}: the loop patches need a look`);
}
const BreakControl = controlClass('Break');
const ContinueControl = controlClass('Continue');
const isLoopControl = (error: unknown): error is Error & { written?: string } => error instanceof BreakControl || error instanceof ContinueControl;

type Evaluate = (this: Interpreter, node: Node, environment: Environment) => Value;
const prototype = Interpreter.prototype as unknown as Record<string, Evaluate> & {
  evaluateBlock: (this: Interpreter, statements: Node[], environment: Environment) => Value;
  applyFilter: (this: Interpreter, operand: Value, filter: Node, environment: Environment) => Value;
  evaluate: Evaluate;
};

/**
 * A node standing for a value already evaluated, so a patch that had to look at an operand first does not
 * evaluate it twice (its side effects, its cost in steps).
 */
const PRE_EVALUATED = '__preEvaluated';
const evaluate = prototype.evaluate;
prototype.evaluate = function evaluateOrPreEvaluated(node, environment) {
  return node?.type === PRE_EVALUATED ? (node.value as Value) : evaluate.call(this, node, environment);
};

/** A block's text so far rides on the loop control that leaves it, out through every enclosing block to its loop. */
prototype.evaluateBlock = function evaluateBlockKeepingOutput(statements, environment) {
  let written = '';
  for (const statement of statements) {
    let value: Value;
    try {
      value = this.evaluate(statement as never, environment) as unknown as Value;
    } catch (error) {
      if (isLoopControl(error)) error.written = written + (error.written ?? '');
      throw error;
    }
    if (value.type !== 'NullValue' && value.type !== 'UndefinedValue') written += String(value);
  }
  return new StringValue(written);
};

/** What a `for` statement iterates: a list's items, a mapping's keys, a string's characters, nothing for undefined. */
function itemsOf(iterable: Value): Value[] {
  if (is(iterable, ArrayValue)) return iterable.value as Value[];
  if (is(iterable, ObjectValue)) return [...(iterable.value as Map<string, Value>).keys()].map((key) => new StringValue(key));
  if (is(iterable, StringValue)) return [...(iterable.value as string)].map((character) => new StringValue(character));
  if (is(iterable, UndefinedValue)) return [];
  throw new Error(`Expected iterable or object type in for loop: got ${iterable.type}`);
}

/** Binds a loop variable (a name, or a tuple of names unpacking the item) in `scope`. */
function bind(loopvar: Node, item: Value, scope: Environment): void {
  if (loopvar.type === 'Identifier') {
    scope.setVariable(loopvar.value as string, item as never);
    return;
  }
  if (loopvar.type !== 'TupleLiteral') throw new Error(`Invalid loop variable(s): ${loopvar.type}`);
  const names = loopvar.value as Node[];
  if (!is(item, ArrayValue)) throw new Error(`Cannot unpack non-iterable type: ${item.type}`);
  const parts = item.value as Value[];
  if (names.length !== parts.length) throw new Error(`Too ${names.length > parts.length ? 'few' : 'many'} items to unpack`);
  for (const [i, name] of names.entries()) {
    if (name.type !== 'Identifier') throw new Error(`Cannot unpack non-identifier type: ${name.type}`);
    scope.setVariable(name.value as string, parts[i] as never);
  }
}

prototype.evaluateFor = function evaluateForAsJinja2(node, environment) {
  const scope = new Environment(environment);
  const select = node.iterable as Node;
  const filtered = select.type === 'SelectExpression';
  const all = itemsOf(this.evaluate((filtered ? select.lhs : select) as Node, scope));
  // `for x in xs if test`: the test picks the items first, so `loop` counts only those (as Jinja2's does).
  const items = filtered
    ? all.filter((item) => {
        const test = new Environment(scope);
        bind(node.loopvar as Node, item, test);
        return (this.evaluate(select.test as Node, test) as unknown as { __bool__(): Value }).__bool__().value === true;
      })
    : all;
  let written = '';
  let completed = false;
  for (const [i, item] of items.entries()) {
    const loop = new Map<string, Value>([
      ['index', new IntegerValue(i + 1)],
      ['index0', new IntegerValue(i)],
      ['revindex', new IntegerValue(items.length - i)],
      ['revindex0', new IntegerValue(items.length - i - 1)],
      ['first', new BooleanValue(i === 0)],
      ['last', new BooleanValue(i === items.length - 1)],
      ['length', new IntegerValue(items.length)],
      ['previtem', i > 0 ? (items[i - 1] as Value) : new UndefinedValue()],
      ['nextitem', i < items.length - 1 ? (items[i + 1] as Value) : new UndefinedValue()],
    ]);
    scope.setVariable('loop', new ObjectValue(loop) as never);
    bind(node.loopvar as Node, item, scope);
    try {
      written += String(prototype.evaluateBlock.call(this, node.body as never, scope));
      completed = true;
    } catch (control) {
      if (!isLoopControl(control)) throw control;
      written += control.written ?? '';
      if (control instanceof BreakControl) break;
    }
  }
  // Jinja2's `else` runs unless an iteration ran to its end: an empty sequence, a test that picked nothing, and
  // iterations that all left by `continue` or a first `break` (Jinja2 marks an iteration done at its end).
  if (!completed) written += String(prototype.evaluateBlock.call(this, node.defaultBlock as never, scope));
  return new StringValue(written);
};

/** Filters of a sequence, which Jinja2's `Undefined` (an empty sequence) answers. */
const SEQUENCE_FILTERS = new Set([
  'length',
  'count',
  'list',
  'first',
  'last',
  'join',
  'map',
  'select',
  'reject',
  'selectattr',
  'rejectattr',
  'sort',
  'unique',
  'reverse',
  'sum',
  'min',
  'max',
]);

/** Filters Jinja2 writes as `if seq: for item in seq`, so `none` gives nothing (a template sets `tools = none`). */
const GUARDED_FILTERS = new Set(['map', 'select', 'reject', 'selectattr', 'rejectattr']);

/**
 * Text marked safe (`|safe`, markupsafe's `Markup`): Python's `Markup + str` escapes the other side for HTML, so
 * a template that writes `"…"|safe + tool | tojson` puts `&#34;` in the prompt under transformers, and here too.
 */
const markup = new WeakSet<Value>();
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);

const applyFilter = prototype.applyFilter;
prototype.applyFilter = function applyFilterAsJinja2(operand, filter, environment) {
  const name = (filter.type === 'CallExpression' ? (filter.callee as Node).value : filter.value) as string;
  if (name === 'safe' && is(operand, StringValue)) {
    const safe = new StringValue(operand.value);
    markup.add(safe);
    return safe;
  }
  const empty = (is(operand, UndefinedValue) && SEQUENCE_FILTERS.has(name)) || (operand.type === 'NullValue' && GUARDED_FILTERS.has(name));
  if (empty) return applyFilter.call(this, new ArrayValue([]), filter, environment);
  if (name === 'string' && (is(operand, ObjectValue) || is(operand, ArrayValue))) return new StringValue(pythonRepr(toPlain(operand)));
  return applyFilter.call(this, operand, filter, environment);
};

const evaluateTestExpression = prototype.evaluateTestExpression as Evaluate;
prototype.evaluateTestExpression = function evaluateTestAsJinja2(node, environment) {
  const test = (node.test as Node).value;
  if (!node.negate && (test === 'sequence' || test === 'iterable')) {
    const operand = this.evaluate(node.operand as Node, environment);
    if (is(operand, UndefinedValue)) return new BooleanValue(true);
    return evaluateTestExpression.call(this, { ...node, operand: { type: PRE_EVALUATED, value: operand } }, environment);
  }
  return evaluateTestExpression.call(this, node, environment);
};

const evaluateBinaryExpression = prototype.evaluateBinaryExpression as Evaluate;
prototype.evaluateBinaryExpression = function evaluateBinaryAsJinja2(node, environment) {
  if ((node.operator as Node).value !== '+') return evaluateBinaryExpression.call(this, node, environment);
  const left = this.evaluate(node.left as Node, environment);
  const right = this.evaluate(node.right as Node, environment);
  const strings = [left, right].filter((side) => is(side, StringValue)).length;
  if (strings === 1 && !is(left, UndefinedValue) && !is(right, UndefinedValue)) {
    const other = is(left, StringValue) ? right : left;
    throw new TypeError(`can only concatenate str (not "${pythonTypeName(other)}") to str`);
  }
  if (strings === 2 && (markup.has(left) || markup.has(right))) {
    const side = (value: Value) => (markup.has(value) ? String(value.value) : escapeHtml(String(value.value)));
    const joined = new StringValue(side(left) + side(right));
    markup.add(joined);
    return joined;
  }
  return evaluateBinaryExpression.call(
    this,
    { ...node, left: { type: PRE_EVALUATED, value: left }, right: { type: PRE_EVALUATED, value: right } },
    environment,
  );
};

/** Python's name for a runtime value's type, as its errors write it. */
function pythonTypeName(value: Value): string {
  if (is(value, ObjectValue)) return 'dict';
  if (is(value, ArrayValue)) return 'list';
  if (is(value, IntegerValue)) return 'int';
  if (is(value, BooleanValue)) return 'bool';
  return value.type === 'FloatValue' ? 'float' : value.type === 'NullValue' ? 'NoneType' : value.type;
}

/** A runtime value as plain JS (maps as objects), for writing it out. */
function toPlain(value: Value): unknown {
  if (is(value, ArrayValue)) return (value.value as Value[]).map(toPlain);
  if (is(value, ObjectValue)) return Object.fromEntries([...(value.value as Map<string, Value>)].map(([k, v]) => [k, toPlain(v)]));
  if (is(value, UndefinedValue) || value.type === 'NullValue') return null;
  return value.value;
}
