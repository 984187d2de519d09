import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BOT, type FakeSlack, startFakeSlack } from '../../sandbox/fake-slack/server.js';

// The fake Slack checks Slack's data table and chart blocks as docs/tables-and-charts.md reads the
// reference pages: each limit just met passes and just broken is refused with the JSON pointer of
// what broke it. And it can play a workspace without them: both types refused by name, per surface.

const TOKEN = 'xoxb-data-blocks';
const CHANNEL = 'C0SUPPORT';

const x = (length: number) => 'x'.repeat(length);
const rawText = (text: string) => ({ type: 'raw_text', text });
const rawNumber = (value: number, text = String(value)) => ({ type: 'raw_number', value, text });
const link = {
  type: 'rich_text',
  elements: [
    { type: 'rich_text_section', elements: [{ type: 'link', url: 'https://example.com/o/1', text: 'A1' }] },
  ],
};

/** A table of `rows` rows under a header, `columns` wide; `cell` makes each body cell. */
function table(
  rows: number,
  columns = 2,
  extra: Record<string, unknown> = {},
  cell: (r: number) => unknown = (r) => rawText(`r${r}`),
) {
  return {
    type: 'data_table',
    caption: 'Orders',
    rows: [
      Array.from({ length: columns }, (_, c) => rawText(`Column ${c}`)),
      ...Array.from({ length: rows }, (_, r) => Array.from({ length: columns }, () => cell(r))),
    ],
    ...extra,
  };
}

const categories = (count: number, length = 3) =>
  Array.from({ length: count }, (_, i) => `${i}`.padEnd(length, 'd'));

function bar(
  options: { series?: number; points?: number; label?: number; title?: string; name?: string } = {},
) {
  const labels = categories(options.points ?? 3, options.label ?? 3);
  return {
    type: 'data_visualization',
    title: options.title ?? 'Spend per day',
    chart: {
      type: 'bar',
      series: Array.from({ length: options.series ?? 1 }, (_, s) => ({
        name: options.name ?? `Series ${s}`,
        data: labels.map((label, i) => ({ label, value: i - 1 })),
      })),
      axis_config: { categories: labels, x_label: 'Day', y_label: 'EUR' },
    },
  };
}

function pie(segments: number, value = 1, label = 'Product') {
  return {
    type: 'data_visualization',
    title: 'By product',
    chart: { type: 'pie', segments: Array.from({ length: segments }, () => ({ label, value })) },
  };
}

/** [what, blocks that pass, blocks that break it, where Slack points]. */
const LIMITS: Array<[string, unknown[], unknown[], string]> = [
  ['a table has a caption', [table(1)], [{ ...table(1), caption: undefined }], '/blocks/0/caption'],
  [
    'page_size 1 to 100',
    [table(1, 2, { page_size: 100 })],
    [table(1, 2, { page_size: 101 })],
    '/blocks/0/page_size',
  ],
  [
    'page_size at least 1',
    [table(1, 2, { page_size: 1 })],
    [table(1, 2, { page_size: 0 })],
    '/blocks/0/page_size',
  ],
  ['at most 100 rows under the header', [table(100)], [table(101)], '/blocks/0/rows'],
  ['at least one row under the header', [table(1)], [table(0)], '/blocks/0/rows'],
  ['at most 20 columns', [table(1, 20)], [table(1, 21)], '/blocks/0/rows/0'],
  [
    'every row as long as the header',
    [table(1, 2)],
    [{ ...table(1, 2), rows: [[rawText('A'), rawText('B')], [rawText('a')]] }],
    '/blocks/0/rows/1',
  ],
  [
    'no rich_text in the header',
    [{ ...table(1, 1), rows: [[rawText('Order')], [link]] }],
    [{ ...table(1, 1), rows: [[link], [link]] }],
    '/blocks/0/rows/0/0/type',
  ],
  [
    'raw_text not empty',
    [table(1, 1, {}, () => rawText('a'))],
    [table(1, 1, {}, () => rawText(''))],
    '/blocks/0/rows/1/0/text',
  ],
  [
    'raw_number: a finite value',
    [table(1, 1, {}, () => rawNumber(-0.5))],
    [table(1, 1, {}, () => ({ type: 'raw_number', value: '12', text: '12' }))],
    '/blocks/0/rows/1/0/value',
  ],
  [
    'raw_number: a text to show',
    [table(1, 1, {}, () => rawNumber(3, '€3.00'))],
    [table(1, 1, {}, () => ({ type: 'raw_number', value: 3 }))],
    '/blocks/0/rows/1/0/text',
  ],
  // Header "Column 0" (8) + 4 rows of 2,498 = 10,000.
  [
    '10,000 characters across all cells',
    [table(4, 1, {}, () => rawText(x(2_498)))],
    [table(4, 1, {}, (r) => rawText(x(r === 0 ? 2_499 : 2_498)))],
    '/blocks/0/rows',
  ],
  [
    'row_header_column_index within the columns',
    [table(1, 2, { row_header_column_index: 1 })],
    [table(1, 2, { row_header_column_index: 2 })],
    '/blocks/0/row_header_column_index',
  ],
  ['a chart title of 50', [bar({ title: x(50) })], [bar({ title: x(51) })], '/blocks/0/title'],
  ['a chart has a title', [bar({ title: x(1) })], [bar({ title: '' })], '/blocks/0/title'],
  [
    'a chart type Slack draws',
    [bar()],
    [{ ...bar(), chart: { ...bar().chart, type: 'scatter' } }],
    '/blocks/0/chart/type',
  ],
  ['at most 6 series', [bar({ series: 6 })], [bar({ series: 7 })], '/blocks/0/chart/series'],
  [
    'series named apart',
    [bar({ series: 2 })],
    [bar({ series: 2, name: 'Spend' })],
    '/blocks/0/chart/series/1/name',
  ],
  ['a series name of 20', [bar({ name: x(20) })], [bar({ name: x(21) })], '/blocks/0/chart/series/0/name'],
  ['labels of 20', [bar({ label: 20 })], [bar({ label: 21 })], '/blocks/0/chart/axis_config/categories/0'],
  [
    'at most 20 categories',
    [bar({ points: 20 })],
    [bar({ points: 21 })],
    '/blocks/0/chart/axis_config/categories',
  ],
  [
    'a bar chart has axis_config',
    [bar()],
    [{ ...bar(), chart: { type: 'bar', series: bar().chart.series } }],
    '/blocks/0/chart/axis_config',
  ],
  [
    'a point is labelled by a category',
    [bar()],
    [{ ...bar(), chart: { ...bar().chart, axis_config: { categories: ['Mon', '1dd', '2dd'] } } }],
    '/blocks/0/chart/series/0/data/0/label',
  ],
  [
    'values are finite numbers',
    [bar()],
    [
      {
        ...bar(),
        chart: { ...bar().chart, series: [{ name: 'S', data: [{ label: '0dd', value: 'NaN' }] }] },
      },
    ],
    '/blocks/0/chart/series/0/data/0/value',
  ],
  ['at most 6 segments', [pie(6)], [pie(7)], '/blocks/0/chart/segments'],
  ['a segment greater than 0', [pie(1, 0.01)], [pie(1, 0)], '/blocks/0/chart/segments/0/value'],
  ['a segment label of 20', [pie(1, 1, x(20))], [pie(1, 1, x(21))], '/blocks/0/chart/segments/0/label'],
  ['two charts a message', [bar(), pie(1)], [bar(), pie(1), bar()], '/blocks/2'],
];

describe('the fake Slack: data tables and charts', () => {
  let fake: FakeSlack;

  beforeAll(async () => {
    fake = await startFakeSlack({
      botToken: TOKEN,
      signingSecret: 'data-blocks-secret',
      channels: [{ id: CHANNEL, name: 'support' }],
    });
  });
  afterAll(() => fake.stop());
  beforeEach(() => {
    for (const surface of ['messages', 'views'] as const) fake.setDataBlocksRefused(surface, false);
  });

  const call = async (method: string, args: Record<string, unknown>) => {
    const response = await fetch(`${fake.apiUrl}${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(args),
    });
    return (await response.json()) as {
      ok: boolean;
      error?: string;
      errors?: string[];
      response_metadata?: { messages: string[] };
      ts?: string;
    };
  };
  const respond = async (body: Record<string, unknown>) => {
    const id = fake.createResponseUrl({ channel: CHANNEL, user: 'U0AGENT' });
    const response = await fetch(`${fake.url}/response/${id}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };

  it.each(LIMITS)('%s: messages, response_urls and the Home tab', async (_limit, ok, over, pointer) => {
    expect(await call('chat.postMessage', { channel: CHANNEL, text: 'fits', blocks: ok })).toMatchObject({
      ok: true,
    });
    const refused = await call('chat.postMessage', { channel: CHANNEL, text: 'over', blocks: over });
    expect(refused).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(refused.errors?.some((error) => error.endsWith(`[json-pointer:${pointer}]`))).toBe(true);
    expect(refused.response_metadata?.messages.every((message) => message.startsWith('[ERROR] '))).toBe(true);
    expect(await respond({ text: 'over', blocks: over })).toEqual({ status: 400, text: 'invalid_blocks' });
    expect(await respond({ text: 'fits', blocks: ok })).toEqual({ status: 200, text: 'ok' });
    // A Home tab points into the view; the chart count is a message's rule only.
    const home = await call('views.publish', { user_id: 'U0AGENT', view: { type: 'home', blocks: over } });
    if (pointer === '/blocks/2') expect(home).toMatchObject({ ok: true });
    else expect(home.errors?.some((error) => error.endsWith(`[json-pointer:/view${pointer}]`))).toBe(true);
  });

  it('a workspace without tables and charts refuses them in messages by type, and takes them back', async () => {
    const blocks = [
      { type: 'section', text: { type: 'mrkdwn', text: 'Orders' } },
      { type: 'divider' },
      table(1),
      bar(),
    ];
    fake.setDataBlocksRefused('messages', true);
    expect(fake.dataBlocksRefusedOn()).toEqual(['messages']);
    const refused = await call('chat.postMessage', { channel: CHANNEL, text: 'orders', blocks });
    expect(refused).toEqual({
      ok: false,
      error: 'invalid_blocks',
      errors: [
        'unsupported type: data_table [json-pointer:/blocks/2]',
        'unsupported type: data_visualization [json-pointer:/blocks/3]',
      ],
      response_metadata: {
        messages: [
          '[ERROR] unsupported type: data_table [json-pointer:/blocks/2]',
          '[ERROR] unsupported type: data_visualization [json-pointer:/blocks/3]',
        ],
      },
    });
    expect(
      await call('chat.postEphemeral', { channel: CHANNEL, user: 'U0AGENT', text: 'o', blocks }),
    ).toMatchObject({
      error: 'invalid_blocks',
    });
    expect(await respond({ text: 'orders', blocks })).toEqual({ status: 400, text: 'invalid_blocks' });
    const posted = await call('chat.postMessage', {
      channel: CHANNEL,
      text: 'classic',
      blocks: blocks.slice(0, 2),
    });
    expect(posted).toMatchObject({ ok: true });
    expect(
      await call('chat.update', { channel: CHANNEL, ts: posted.ts, text: 'orders', blocks }),
    ).toMatchObject({
      error: 'invalid_blocks',
    });
    // Views are another surface: the Home tab still takes them.
    expect(await call('views.publish', { user_id: 'U0AGENT', view: { type: 'home', blocks } })).toMatchObject(
      { ok: true },
    );
    fake.setDataBlocksRefused('messages', false);
    expect(await call('chat.postMessage', { channel: CHANNEL, text: 'orders', blocks })).toMatchObject({
      ok: true,
    });
  });

  it('a workspace without them in views refuses them on the Home tab and in modals, not in messages', async () => {
    fake.setDataBlocksRefused('views', true);
    const published = await call('views.publish', {
      user_id: 'U0AGENT',
      view: { type: 'home', blocks: [pie(2)] },
    });
    expect(published).toMatchObject({
      ok: false,
      error: 'invalid_arguments',
      response_metadata: {
        messages: ['[ERROR] unsupported type: data_visualization [json-pointer:/view/blocks/0]'],
      },
    });
    const modal = { type: 'modal', title: { type: 'plain_text', text: 'Orders' }, blocks: [table(2)] };
    expect(await call('views.open', { trigger_id: fake.newTrigger('U0AGENT'), view: modal })).toMatchObject({
      errors: ['unsupported type: data_table [json-pointer:/view/blocks/0]'],
    });
    expect(
      await call('chat.postMessage', { channel: CHANNEL, text: 'chart', blocks: [pie(2)] }),
    ).toMatchObject({
      ok: true,
    });
  });

  it('the switch is per workspace: another team refusing them changes nothing for the app', async () => {
    fake.setDataBlocksRefused('messages', true, 'T0ELSEWHERE');
    expect(fake.dataBlocksRefusedOn('T0ELSEWHERE')).toEqual(['messages']);
    expect(fake.dataBlocksRefusedOn(BOT.teamId)).toEqual([]);
    expect(await call('chat.postMessage', { channel: CHANNEL, text: 't', blocks: [table(1)] })).toMatchObject(
      {
        ok: true,
      },
    );
    fake.setDataBlocksRefused('messages', false, 'T0ELSEWHERE');
  });
});
