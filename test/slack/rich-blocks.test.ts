import { describe, expect, it } from 'vitest';
import { createRichBlocks, isNewBlockRefusal } from '../../src/slack/rich-blocks.js';
import { createMemoryState, StateUnavailableError } from '../../src/state/index.js';
import { capturedLogger } from '../helpers/captured-logger.js';

const table = { type: 'data_table' };
const section = { type: 'section' };
const message = { blocks: [section, table], classic: [section] };

/** Slack's refusal as the Web API client throws it: invalid_blocks, pointing at a block. */
const refusal = (pointer: string, error = 'invalid_blocks') =>
  Object.assign(new Error(error), {
    data: {
      ok: false,
      error,
      response_metadata: { messages: [`[ERROR] unsupported type [json-pointer:${pointer}]`] },
    },
  });

describe('tables and charts, and their classic blocks', () => {
  it('a refusal naming a table or chart (by type or by pointer) is one; any other error is not', () => {
    expect(isNewBlockRefusal(refusal('/blocks/1'), message.blocks)).toBe(true);
    expect(isNewBlockRefusal(refusal('/view/blocks/1', 'invalid_arguments'), message.blocks)).toBe(true);
    expect(isNewBlockRefusal(refusal('/view/blocks/0', 'invalid_arguments'), message.blocks)).toBe(false);
    expect(isNewBlockRefusal(refusal('/blocks/0'), message.blocks)).toBe(false);
    const named = Object.assign(new Error('x'), {
      data: { error: 'invalid_blocks', errors: ['unsupported type: data_visualization'] },
    });
    expect(isNewBlockRefusal(named, [])).toBe(true);
    expect(
      isNewBlockRefusal(Object.assign(new Error('x'), { data: { error: 'channel_not_found' } }), []),
    ).toBe(false);
    // A response_url's refusal is a 400 with no details (Bolt's RespondError keeps the status only).
    expect(isNewBlockRefusal(Object.assign(new Error('x'), { statusCode: 400 }), message.blocks)).toBe(true);
    expect(isNewBlockRefusal(Object.assign(new Error('x'), { statusCode: 404 }), message.blocks)).toBe(false);
  });

  it('refused: the classic blocks at once, then for a day on that surface only, said once in the log and counted each time', async () => {
    const state = createMemoryState();
    const lines: string[] = [];
    const logger = capturedLogger(lines);
    const refused: string[] = [];
    const rich = createRichBlocks({ state, logger, workspace: 'T1', onRefused: (s) => refused.push(s) });
    const sent: unknown[][] = [];
    const slack = async (blocks: unknown[] | undefined) => {
      sent.push(blocks ?? []);
      if (blocks?.includes(table)) throw refusal('/blocks/1');
      return 'ok';
    };
    expect(await rich.send('messages', message, slack)).toBe('ok');
    expect(sent).toEqual([message.blocks, message.classic]);
    expect(await rich.send('messages', message, slack)).toBe('ok');
    // Remembered: the second message is not tried with its table.
    expect(sent.slice(2)).toEqual([message.classic]);
    expect(refused).toEqual(['messages']);
    // Another surface is tried on its own.
    await rich.send('views', message, slack);
    expect(sent.slice(3)).toEqual([message.blocks, message.classic]);
    expect(lines.filter((line) => line.includes('classic blocks are sent instead'))).toHaveLength(2);
    // A message without a table or chart goes as it is.
    await rich.send('messages', { blocks: [section] }, slack);
    expect(sent.at(-1)).toEqual([section]);
  });

  it('forgotten (what the sandbox asks when its switch takes tables again): the next message tries them', async () => {
    const rich = createRichBlocks({ state: createMemoryState(), logger: capturedLogger(), workspace: 'T1' });
    let refusing = true;
    const sent: unknown[][] = [];
    const slack = async (blocks: unknown[] | undefined) => {
      sent.push(blocks ?? []);
      if (refusing && blocks?.includes(table)) throw refusal('/blocks/1');
      return 'ok';
    };
    await rich.send('messages', message, slack);
    await rich.send('views', message, slack);
    refusing = false;
    await rich.forget();
    await rich.send('messages', message, slack);
    await rich.send('views', message, slack);
    expect(sent.slice(4)).toEqual([message.blocks, message.blocks]);
  });

  it('another error is the caller’s; the shared state away, the new blocks are still tried', async () => {
    const state = createMemoryState();
    const logger = capturedLogger();
    const rich = createRichBlocks({ state, logger, workspace: 'T1' });
    const gone = Object.assign(new Error('channel_not_found'), { data: { error: 'channel_not_found' } });
    await expect(
      rich.send('messages', message, async () => {
        throw gone;
      }),
    ).rejects.toBe(gone);
    const down = {
      ...state,
      get: async () => {
        throw new StateUnavailableError('down');
      },
      claim: async () => {
        throw new StateUnavailableError('down');
      },
    };
    const sent: unknown[][] = [];
    const richDown = createRichBlocks({ state: down, logger, workspace: 'T1' });
    await richDown.send('messages', message, async (blocks) => {
      sent.push(blocks ?? []);
      if (blocks?.includes(table)) throw refusal('/blocks/1');
    });
    expect(sent).toEqual([message.blocks, message.classic]);
  });
});
