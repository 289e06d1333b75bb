import type { FamilyInfo } from '../engine/model-family.ts';

/** What {@link runSelfCheck} found out about a model and quantization. */
export interface ToolCallCheck {
  /** Called a tool AND answered from its result. */
  ok: boolean;
  /** Called the tool at all. */
  called: boolean;
  /** The tool's unguessable token reached the answer. */
  grounded: boolean;
  /** The call came only once the syntax was primed (or asked stepwise). */
  needed_forcing: boolean;
  model: string;
  device: string;
  dtype: string;
  /** The model-family profile the check spoke to the model with: the verdict is about that dialect. */
  family?: FamilyInfo;
  /** The model's answer to the check question. */
  answer: string;
  /** One sentence, safe to show a user. */
  detail: string;
  /** What the check cost. */
  generations: number;
  promptTokens: number;
  newTokens: number;
  ms: number;
  /** Generated tokens per second of generation time during the check: this model's speed on this device. */
  tokensPerSecond?: number;
}
