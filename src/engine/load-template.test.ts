/**
 * Loads whose chat template is not one the loop can use as it comes (issue 40), on the tiny Qwen3
 * fixture's graph and tokenizer with another template written into a copy of its tokenizer config:
 * a Hermes-style named `tool_use` template alone (what Hermes 3 ships for tools), and a template
 * that cannot render anything. Neither may fail the load.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, TINY_QWEN3, prepareFixtureModels } from '../../tests/fixtures/prepare-models.ts';
import { NexusChat } from '../nexus/index.ts';
import { TIMEOUTS } from '../../tests/timeouts.ts';

const LOAD_TIMEOUT_MS = TIMEOUTS.modelLoad;
let models = '';

/** A copy of the tiny Qwen3 fixture whose tokenizer config carries `chatTemplate`. */
async function withTemplate(name: string, chatTemplate: unknown): Promise<string> {
  const folder = join(models, name);
  await cp(join(FIXTURE_MODELS_DIR, TINY_QWEN3), folder, { recursive: true });
  const configPath = join(folder, 'tokenizer_config.json');
  const config = JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
  await writeFile(configPath, JSON.stringify({ ...config, chat_template: chatTemplate }));
  return folder;
}

/** Loads a copy of the fixture with `chatTemplate` (q8) and runs `check` on it, disposing it after. */
async function withChat(name: string, chatTemplate: unknown, check: (chat: NexusChat) => Promise<void> | void): Promise<void> {
  const chat = await NexusChat.load({ path: await withTemplate(name, chatTemplate) }, { dtype: 'q8' });
  try {
    await check(chat);
  } finally {
    await chat.dispose();
  }
}

beforeAll(async () => {
  prepareFixtureModels();
  models = await mkdtemp(join(tmpdir(), 'nexus-template-'));
});
afterAll(async () => {
  await rm(models, { recursive: true, force: true });
});

describe('a load whose chat template needs care', () => {
  it(
    "loads a model whose only template is Hermes' named tool_use one, with no problem named",
    async () => {
      const hermes = await readFile('tests/fixtures/templates/hermes-3-llama-3.1-8b-tool_use.jinja', 'utf8');
      await withChat('hermes-tool-use', [{ name: 'tool_use', template: hermes }], (chat) => {
        expect(chat.info.family).toMatchObject({ id: 'hermes', dialect: { noTools: 'empty', emptyDescriptions: true } });
        expect(chat.info.family?.templateProblem).toBeUndefined();
      });
    },
    LOAD_TIMEOUT_MS,
  );

  it(
    "refuses tools, naming the cause, to a template of one family over another's tokenizer (Ministral 3's template, Qwen3's tokenizer)",
    async () => {
      const ministral = await readFile('tests/fixtures/templates/ministral-3-14b-reasoning-2512.jinja', 'utf8');
      await withChat('mismatched', ministral, (chat) => {
        expect(chat.info.family?.id).toBe('mistral3');
        expect(chat.info.family?.templateProblem).toMatch(/has a Mistral 3 template, but its tokenizer has none of that family's end tokens \(<\/s>\)/);
      });
    },
    LOAD_TIMEOUT_MS,
  );

  it(
    'loads a model whose template renders nothing, and refuses it tools naming the cause',
    async () => {
      await withChat('broken', "{{ raise_exception('This template is broken on purpose.') }}", async (chat) => {
        expect(chat.info.family?.templateProblem).toMatch(/^cannot render plain chat \(fails: .*This template is broken on purpose/);
        chat.tool('get_weather', 'Weather', { city: 'string' }, () => 'sunny');
        await expect(chat.chat('Weather in Paris?')).rejects.toThrow(/cannot render plain chat/);
      });
    },
    LOAD_TIMEOUT_MS,
  );

  it(
    "bounds every render of a hostile template, through transformers.js' own apply_chat_template: the load names the bound, and an answer stops at it (issue 67, L7)",
    async () => {
      // Plain chat renders; with tools the template loops without end (a load once ran past 120 s on one).
      const qwen3 = await readFile('tests/fixtures/templates/qwen3-0.6b.jinja', 'utf8');
      const hostile = `{%- if tools %}{%- for i in range(100000) %}{%- set pages = range(100000) %}{% endfor %}{%- endif %}${qwen3}`;
      await withChat('hostile', hostile, async (chat) => {
        // Each pass of its loop is slow as well as long: whichever bound it reaches first stops it, and is named.
        expect(chat.info.family?.templateProblem).toMatch(/The chat template (took too many steps|ran too long), past its bound of [\d,]+ \((steps|ms)\)/);
        chat.tool('get_weather', 'Weather', { city: 'string' }, () => 'sunny');
        await expect(chat.chat('Weather in Paris?')).rejects.toThrow(/took too many steps|ran too long|cannot render/);
        // Without tools the same template answers: a render past a bound is that render's alone.
        expect((await chat.chat('Hello', { toolChoice: 'none', maxNewTokens: 2 })).text).toBeTypeOf('string');
      });
    },
    LOAD_TIMEOUT_MS,
  );
});
