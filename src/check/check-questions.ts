import type { ParametersInput } from '../tools/tool-schema.ts';

/**
 * The questions that prove a model calls tools: each needs one tool, and the tool returns a
 * token nothing could guess (fresh every run), so a reply that contains it proves a real call
 * happened and the model answered from the result.
 */

/** A fresh unguessable token such as `ZQ-4817-KX`: two letters, four digits, two letters. */
export function freshToken(random: () => number = Math.random): string {
  const letters = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
  const letter = () => letters[Math.floor(random() * letters.length)] ?? 'X';
  const digits = String(Math.floor(random() * 9000) + 1000);
  return `${letter()}${letter()}-${digits}-${letter()}${letter()}`;
}

/** One check question: the tool to register, the question, and how the result carries the token. */
export interface CheckQuestion {
  /** Short name for reports. */
  id: string;
  tool: {
    name: string;
    description: string;
    parameters: ParametersInput;
  };
  /** The question, with the argument values the model must copy into its call. */
  question: string;
  /** The arguments a correct call carries (compared leniently: case and spacing of strings ignored). */
  expected: Record<string, unknown>;
  /** What the tool returns for `token`. */
  result(token: string, args: Record<string, unknown>): Record<string, unknown>;
}

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)] as T;

const ITEMS = ['blue falcon', 'red maple', 'silver otter', 'green harbor', 'amber fox', 'north star', 'quiet river', 'iron bridge'];
const NAMES = ['Maria Lopez', 'Ken Adams', 'Aiko Tanaka', 'Omar Haddad', 'Lena Fischer', 'Ravi Kumar', 'Sara Costa', 'Tom Becker'];
const DEPARTMENTS = ['Finance', 'Sales', 'Research', 'Support', 'Legal', 'Design'];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'INR'] as const;

/** The self-check: one string argument, the token returned as a code. */
export function selfCheckQuestion(random: () => number = Math.random): CheckQuestion {
  const item = pick(ITEMS, random);
  return {
    id: 'self-check',
    tool: {
      name: 'get_verification_code',
      description: 'Get the current verification code for an item. The code changes every time, so always call this tool.',
      parameters: { item: { type: 'string', description: 'The item name, e.g. "blue falcon"' } },
    },
    question: `What is the verification code for ${item}?`,
    expected: { item },
    result: (token) => ({ item, code: token }),
  };
}

/** The three `test:models` questions: a string id, a number plus an enum, and two strings. */
export function modelCheckQuestions(random: () => number = Math.random): CheckQuestion[] {
  const order = `${pick(['A', 'B', 'C', 'K', 'M'], random)}-${Math.floor(random() * 9000) + 1000}`;
  const amount = (Math.floor(random() * 95) + 5) * 10;
  const currency = pick(CURRENCIES, random);
  const name = pick(NAMES, random);
  const department = pick(DEPARTMENTS, random);
  return [
    {
      id: 'order-tracking',
      tool: {
        name: 'get_order_status',
        description: 'Look up an order by its id and return its status and tracking number.',
        parameters: { order_id: { type: 'string', description: 'The order id, e.g. "A-1234"' } },
      },
      question: `What is the tracking number of order ${order}?`,
      expected: { order_id: order },
      result: (token) => ({ order_id: order, status: 'shipped', tracking_number: token }),
    },
    {
      id: 'currency-quote',
      tool: {
        name: 'get_exchange_quote',
        description: 'Get a quote for converting an amount of US dollars into another currency. Returns the quote id.',
        parameters: {
          amount: { type: 'number', description: 'The amount in US dollars' },
          currency: { type: 'string', enum: [...CURRENCIES], description: 'The target currency' },
        },
      },
      question: `I want to convert ${amount} US dollars to ${currency}. What is the quote id?`,
      expected: { amount, currency },
      result: (token) => ({ amount, currency, quote_id: token }),
    },
    {
      id: 'employee-badge',
      tool: {
        name: 'find_employee',
        description: 'Find an employee by name and department and return their badge number.',
        parameters: {
          name: { type: 'string', description: 'Full name' },
          department: { type: 'string', description: 'Department name' },
        },
      },
      question: `What is the badge number of ${name} from ${department}?`,
      expected: { name, department },
      result: (token) => ({ name, department, badge_number: token }),
    },
  ];
}

/** True when `args` carry the expected values (strings compared ignoring case and surrounding space). */
export function argumentsMatch(expected: Record<string, unknown>, args: Record<string, unknown>): boolean {
  const norm = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v);
  return Object.entries(expected).every(([k, v]) => norm(args[k]) === norm(v));
}
