import { describe, expect, it } from 'vitest';
import {
  checkStateValues,
  modalKey,
  readStateValues,
  renderModalView,
  // @ts-expect-error: a plain browser module without type declarations, loaded here as the page loads it
} from '../../sandbox/public/modal.js';
import { renderExportModal, renderSearchModal } from '../../src/blocks/index.js';

// The sandbox's modals: every Block Kit input Order Desk's modals use, drawn as a form, and the form
// read back in the exact shapes of Slack's view_submission state.values.

const plain = (text: string) => ({ type: 'plain_text', text });
const option = (text: string, value: string) => ({ text: plain(text), value });

const context = {
  user: 'U0AGENT',
  users: [
    { id: 'U0AGENT', name: 'ana.agent', realName: 'Ana Agent' },
    { id: 'U0MEMBER', name: 'max.member', realName: 'Max Member' },
  ],
  channels: [
    { id: 'C0SUPPORT', name: 'support' },
    { id: 'C0GENERAL', name: 'general' },
    { id: 'C0CONNECT', name: 'shared-with-reseller', externallyShared: true },
    { id: 'C0SECRET', name: 'secret', isPrivate: true },
    { id: 'D0AGENT', name: 'Order Desk' },
    { id: 'D0MEMBER', name: 'Order Desk' },
  ],
  now: new Date('2026-11-22T12:00:00Z'),
};

/** A modal as the coming /order-subscribe will open it, and every other input the sandbox draws. */
const VIEW = {
  type: 'modal',
  callback_id: 'everything',
  title: plain('Subscribe a channel'),
  submit: plain('Subscribe'),
  close: plain('Cancel'),
  blocks: [
    { type: 'header', text: plain(':key: Order events') },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: 'Posts *new orders* to <#C0SUPPORT>.' },
      accessory: { type: 'button', action_id: 'help', text: plain('Help') },
    },
    { type: 'context', elements: [{ type: 'mrkdwn', text: 'Filters combine with _AND_.' }] },
    { type: 'divider' },
    {
      type: 'input',
      block_id: 'channel',
      label: plain('Channel'),
      element: { type: 'conversations_select', action_id: 'pick', default_to_current_conversation: true },
    },
    {
      type: 'input',
      block_id: 'kinds',
      label: plain('Events'),
      element: {
        type: 'checkboxes',
        action_id: 'kinds',
        options: [
          { text: { type: 'mrkdwn', text: '*New* orders' }, value: 'new' },
          { ...option('Status changes', 'status'), description: plain('Any status, or those below') },
        ],
        initial_options: [{ text: { type: 'mrkdwn', text: '*New* orders' }, value: 'new' }],
      },
    },
    {
      type: 'input',
      block_id: 'statuses',
      optional: true,
      label: plain('Statuses'),
      hint: plain('None means any.'),
      element: {
        type: 'multi_static_select',
        action_id: 'statuses',
        placeholder: plain('Any status'),
        max_selected_items: 2,
        options: [option('Refunded', 'REFUNDED'), option('Failed', 'FAILED'), option('Canceled', 'CANCELED')],
      },
    },
    {
      type: 'input',
      block_id: 'product',
      optional: true,
      label: plain('Product title contains'),
      element: {
        type: 'plain_text_input',
        action_id: 'text',
        placeholder: plain('e.g. office'),
        max_length: 50,
        min_length: 3,
      },
    },
    {
      type: 'input',
      block_id: 'note',
      optional: true,
      label: plain('Note'),
      element: { type: 'plain_text_input', action_id: 'note', multiline: true, initial_value: 'for <team>' },
    },
    {
      type: 'input',
      block_id: 'amount',
      optional: true,
      label: plain('Amount at least'),
      element: {
        type: 'number_input',
        action_id: 'amount',
        is_decimal_allowed: true,
        min_value: '0',
        max_value: '100000',
        placeholder: plain('e.g. 49.99'),
      },
    },
    {
      type: 'input',
      block_id: 'count',
      optional: true,
      label: plain('Orders a day'),
      element: { type: 'number_input', action_id: 'count', is_decimal_allowed: false, initial_value: '3' },
    },
    {
      type: 'input',
      block_id: 'when',
      label: plain('Post'),
      element: {
        type: 'static_select',
        action_id: 'when',
        option_groups: [
          { label: plain('Now'), options: [option('At once', 'now')] },
          { label: plain('Later'), options: [option('Daily', 'daily'), option('Weekly', 'weekly')] },
        ],
        initial_option: option('Daily', 'daily'),
      },
    },
    {
      type: 'input',
      block_id: 'thread',
      label: plain('Threads'),
      element: {
        type: 'radio_buttons',
        action_id: 'thread',
        options: [option('One thread per order', 'per_order'), option('No threads', 'none')],
        initial_option: option('One thread per order', 'per_order'),
      },
    },
    {
      type: 'input',
      block_id: 'since',
      optional: true,
      label: plain('Since'),
      element: { type: 'datepicker', action_id: 'since', initial_date: '2026-11-01' },
    },
    {
      type: 'input',
      block_id: 'public',
      optional: true,
      label: plain('Public channel'),
      element: { type: 'channels_select', action_id: 'channel', initial_channel: 'C0GENERAL' },
    },
    {
      type: 'input',
      block_id: 'owner',
      optional: true,
      label: plain('Owner'),
      element: { type: 'users_select', action_id: 'user', initial_user: 'U0MEMBER' },
    },
  ],
};

/** The [name, value] pairs a browser's FormData gives for the form as drawn, before anyone touches it. */
function untouched(html: string): Array<[string, string]> {
  const unescapeHtml = (text: string) =>
    text
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const entries: Array<[string, string]> = [];
  for (const [, attrs = ''] of html.matchAll(/<input ([^>]*)>/g)) {
    const name = / ?name="([^"]*)"/.exec(attrs)?.[1];
    const type = /type="([^"]*)"/.exec(attrs)?.[1];
    if (!name || ((type === 'checkbox' || type === 'radio') && !/ checked/.test(attrs))) continue;
    entries.push([name, unescapeHtml(/ value="([^"]*)"/.exec(attrs)?.[1] ?? '')]);
  }
  for (const [, name = '', text = ''] of html.matchAll(
    /<textarea [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g,
  ))
    entries.push([name, unescapeHtml(text)]);
  for (const [, name = '', body = ''] of html.matchAll(
    /<select [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g,
  )) {
    const options = [...body.matchAll(/<option value="([^"]*)"( selected)?>/g)];
    const chosen = options.find((o) => o[2]) ?? options[0];
    entries.push([name, unescapeHtml(chosen?.[1] ?? '')]);
  }
  return entries;
}

/** The form's field for a block (fields are named by the block's position in the view). */
const field = (blockId: string) =>
  `field_${VIEW.blocks.findIndex((b) => 'block_id' in b && b.block_id === blockId)}`;

describe('sandbox modals: drawing', () => {
  const html: string = renderModalView({ id: 'V1', view: VIEW, channel: 'C0SUPPORT' }, context);

  it('draws every block and element, none of them as "not shown"', () => {
    expect(html).not.toContain('is not shown in the sandbox');
    expect(html).toContain('<h2>Subscribe a channel</h2>');
    expect(html).toContain('<div class="block header">🔑 Order events</div>');
    expect(html).toContain('Posts <strong>new orders</strong> to <span class="mention">#support</span>.');
    expect(html).toContain('Filters combine with <em>AND</em>.');
    expect(html).toContain('<hr class="block divider">');
    // A click in a modal is not sent in the sandbox: the accessory is left out rather than dead.
    expect(html).not.toContain('>Help</button>');
    expect(html).toContain('<button type="submit" class="primary">Subscribe</button>');
    expect(html).toContain('<button type="button" id="modal-cancel">Cancel</button>');
  });

  it('labels, "(optional)", hints and placeholders as Slack shows them', () => {
    expect(html).toMatch(
      /<legend class="label">Statuses <span class="optional">\(optional\)<\/span><\/legend>/,
    );
    expect(html).toMatch(/<label class="label" for="modal-field-\d+">Channel<\/label>/);
    expect(html).toContain('<span class="hint" id="modal-field-6-hint">None means any.</span>');
    expect(html).toContain('placeholder="e.g. office"');
    expect(html).toContain('maxlength="50"');
    expect(html).toMatch(/<textarea [^>]*rows="4">for &lt;team&gt;<\/textarea>/);
    expect(html).toContain('inputmode="decimal"');
    expect(html).toContain('inputmode="numeric"');
    expect(html).toContain('<optgroup label="Later"><option value="daily" selected>Daily</option>');
    expect(html).toContain('<input type="date"');
    expect(html).toContain('value="2026-11-01"');
  });

  it('checkboxes render mrkdwn and descriptions; the multi-select is a list of boxes', () => {
    expect(html).toMatch(
      /type="checkbox" [^>]*value="new" checked> <span class="option-body"><span class="option-text"><strong>New<\/strong> orders/,
    );
    expect(html).toContain('<span class="option-description">Any status, or those below</span>');
    expect(html).toMatch(/type="checkbox" [^>]*value="REFUNDED">/);
    expect(html).toContain('<span class="list-placeholder">Any status</span><div class="option-list">');
  });

  it('a conversation picker offers public channels and the user’s own DM, and preselects where the modal was opened', () => {
    const picker = /<select id="modal-field-4"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? '';
    const offered = [...picker.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
    expect(offered).toEqual(['', 'C0SUPPORT', 'C0GENERAL', 'C0CONNECT', 'D0AGENT']);
    expect(picker).toContain('<option value="C0SUPPORT" selected># support</option>');
    expect(picker).toContain('Order Desk (direct message)');
    expect(picker).toContain('<option value="">Select a conversation</option>');
  });

  it('initial_conversation wins over the current conversation; filters apply; channels_select is public channels', () => {
    const view = {
      type: 'modal',
      title: plain('T'),
      blocks: [
        {
          type: 'input',
          block_id: 'a',
          label: plain('A'),
          element: {
            type: 'conversations_select',
            action_id: 'a',
            initial_conversation: 'C0GENERAL',
            default_to_current_conversation: true,
            filter: { include: ['public'], exclude_external_shared_channels: true },
          },
        },
        {
          type: 'input',
          block_id: 'b',
          label: plain('B'),
          element: { type: 'channels_select', action_id: 'b' },
        },
        {
          type: 'input',
          block_id: 'c',
          label: plain('C'),
          element: { type: 'users_select', action_id: 'c' },
        },
      ],
    };
    const drawn: string = renderModalView({ id: 'V2', view, channel: 'C0SUPPORT' }, context);
    const offered = (index: number) =>
      [
        ...(
          new RegExp(`<select id="modal-field-${index}"[^>]*>([\\s\\S]*?)</select>`).exec(drawn)?.[1] ?? ''
        ).matchAll(/<option value="([^"]*)"( selected)?/g),
      ].map((m) => `${m[1]}${m[2] ? '*' : ''}`);
    expect(offered(0)).toEqual(['', 'C0SUPPORT', 'C0GENERAL*']);
    expect(offered(1)).toEqual(['', 'C0SUPPORT', 'C0GENERAL', 'C0CONNECT']);
    expect(offered(2)).toEqual(['', 'U0AGENT', 'U0MEMBER']);
    // From the Home tab (no channel), default_to_current_conversation preselects nothing.
    const fromHome: string = renderModalView(
      { id: 'V3', view: { ...VIEW, blocks: [VIEW.blocks[4]] } },
      context,
    );
    expect(fromHome).not.toContain(' selected');
  });

  it('grouped multi-select options and multi pickers: unique ids, preselection, read back as arrays', () => {
    const view = {
      type: 'modal',
      title: plain('T'),
      blocks: [
        {
          type: 'input',
          block_id: 'g',
          label: plain('G'),
          element: {
            type: 'multi_static_select',
            action_id: 'g',
            option_groups: [
              { label: plain('Open'), options: [option('Pending', 'PENDING')] },
              {
                label: plain('Closed'),
                options: [option('Refunded', 'REFUNDED'), option('Failed', 'FAILED')],
              },
            ],
            initial_options: [option('Failed', 'FAILED')],
          },
        },
        {
          type: 'input',
          block_id: 'm',
          label: plain('M'),
          element: {
            type: 'multi_conversations_select',
            action_id: 'm',
            initial_conversations: ['C0GENERAL'],
            default_to_current_conversation: true,
          },
        },
        {
          type: 'input',
          block_id: 'u',
          optional: true,
          label: plain('U'),
          element: { type: 'multi_users_select', action_id: 'u' },
        },
      ],
    };
    const drawn: string = renderModalView({ id: 'V7', view, channel: 'C0SUPPORT' }, context);
    const ids = [...drawn.matchAll(/ id="(modal-field-[^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(drawn).toContain('<div class="option-group">Closed</div>');
    // For the multi picker, default_to_current_conversation wins over initial_conversations.
    expect(readStateValues(view, untouched(drawn), context)).toEqual({
      g: { g: { type: 'multi_static_select', selected_options: [option('Failed', 'FAILED')] } },
      m: { m: { type: 'multi_conversations_select', selected_conversations: ['C0SUPPORT'] } },
      u: { u: { type: 'multi_users_select', selected_users: [] } },
    });
  });

  it('escapes what the view says; an element the sandbox does not draw is named, not dropped', () => {
    const drawn: string = renderModalView(
      {
        id: 'V4',
        view: {
          type: 'modal',
          title: plain('<b>x</b>'),
          blocks: [
            {
              type: 'input',
              block_id: 'f',
              label: plain('<i>L</i>'),
              element: { type: 'file_input', action_id: 'f' },
            },
          ],
        },
      },
      context,
    );
    expect(drawn).toContain('<h2>&lt;b&gt;x&lt;/b&gt;</h2>');
    expect(drawn).toContain('&lt;i&gt;L&lt;/i&gt;');
    expect(drawn).toContain('(file_input is not shown in the sandbox)');
  });

  it('a response_action "update" (same view ID, new content) draws the modal again', () => {
    expect(modalKey({ id: 'V1', view: VIEW })).not.toBe(
      modalKey({ id: 'V1', view: { ...VIEW, blocks: [] } }),
    );
    expect(modalKey({ id: 'V1', view: VIEW })).toBe(modalKey({ id: 'V1', view: VIEW }));
    expect(modalKey(null)).toBe('');
  });
});

describe('sandbox modals: state.values in Slack’s shapes', () => {
  it('the form as drawn (initial values, the current conversation) reads back as Slack would send it', () => {
    const html: string = renderModalView({ id: 'V1', view: VIEW, channel: 'C0SUPPORT' }, context);
    expect(readStateValues(VIEW, untouched(html), context)).toEqual({
      channel: { pick: { type: 'conversations_select', selected_conversation: 'C0SUPPORT' } },
      kinds: {
        kinds: {
          type: 'checkboxes',
          selected_options: [{ text: { type: 'mrkdwn', text: '*New* orders' }, value: 'new' }],
        },
      },
      statuses: { statuses: { type: 'multi_static_select', selected_options: [] } },
      product: { text: { type: 'plain_text_input', value: null } },
      note: { note: { type: 'plain_text_input', value: 'for <team>' } },
      amount: { amount: { type: 'number_input', value: null } },
      count: { count: { type: 'number_input', value: '3' } },
      when: { when: { type: 'static_select', selected_option: { text: plain('Daily'), value: 'daily' } } },
      thread: {
        thread: {
          type: 'radio_buttons',
          selected_option: { text: plain('One thread per order'), value: 'per_order' },
        },
      },
      since: { since: { type: 'datepicker', selected_date: '2026-11-01' } },
      public: { channel: { type: 'channels_select', selected_channel: 'C0GENERAL' } },
      owner: { user: { type: 'users_select', selected_user: 'U0MEMBER' } },
    });
  });

  it('what a person picks and types, each in its element’s shape', () => {
    const values = readStateValues(
      VIEW,
      [
        [field('channel'), 'D0AGENT'],
        [field('kinds'), 'status'],
        [field('kinds'), 'new'],
        [field('statuses'), 'FAILED'],
        [field('statuses'), 'REFUNDED'],
        [field('product'), 'office'],
        [field('amount'), '49.99'],
        [field('when'), 'now'],
        [field('thread'), 'none'],
        [field('since'), ''],
        [field('public'), ''],
        [field('owner'), ''],
      ],
      context,
    );
    expect(values.channel.pick).toEqual({ type: 'conversations_select', selected_conversation: 'D0AGENT' });
    // Options in the order the view lists them, echoed whole (description included).
    expect(values.kinds.kinds.selected_options).toEqual([
      { text: { type: 'mrkdwn', text: '*New* orders' }, value: 'new' },
      { text: plain('Status changes'), value: 'status', description: plain('Any status, or those below') },
    ]);
    expect(values.statuses.statuses).toEqual({
      type: 'multi_static_select',
      selected_options: [option('Refunded', 'REFUNDED'), option('Failed', 'FAILED')],
    });
    expect(values.product.text).toEqual({ type: 'plain_text_input', value: 'office' });
    expect(values.amount.amount).toEqual({ type: 'number_input', value: '49.99' });
    expect(values.count.count).toEqual({ type: 'number_input', value: null });
    expect(values.when.when.selected_option).toEqual(option('At once', 'now'));
    expect(values.thread.thread.selected_option).toEqual(option('No threads', 'none'));
    expect(values.kinds.kinds.type).toBe('checkboxes');
    // Emptied optional fields: null, as Slack sends them.
    expect(values.since.since).toEqual({ type: 'datepicker', selected_date: null });
    expect(values.public.channel).toEqual({ type: 'channels_select', selected_channel: null });
    expect(values.owner.user).toEqual({ type: 'users_select', selected_user: null });
  });

  it('only choices the view offers are sent: another user’s DM or an unknown option reads as nothing', () => {
    const values = readStateValues(
      VIEW,
      [
        [field('channel'), 'D0MEMBER'],
        [field('statuses'), 'NOT_A_STATUS'],
        [field('when'), 'hourly'],
      ],
      context,
    );
    expect(values.channel.pick.selected_conversation).toBeNull();
    expect(values.statuses.statuses.selected_options).toEqual([]);
    expect(values.when.when.selected_option).toBeNull();
    expect(values.kinds.kinds.selected_options).toEqual([]);
  });

  it('blocks without IDs get one, as Slack makes one up; sections and headers carry no state', () => {
    const view = {
      type: 'modal',
      title: plain('T'),
      blocks: [
        { type: 'section', text: plain('x') },
        { type: 'input', label: plain('L'), element: { type: 'plain_text_input' } },
      ],
    };
    expect(readStateValues(view, [['field_1', 'hi']], context)).toEqual({
      block_1: { action_1: { type: 'plain_text_input', value: 'hi' } },
    });
  });
});

describe('sandbox modals: what Slack’s client refuses before sending', () => {
  const check = (entries: Array<[string, string]>) =>
    checkStateValues(VIEW, readStateValues(VIEW, entries, context));
  const filled: Array<[string, string]> = [
    [field('channel'), 'C0SUPPORT'],
    [field('kinds'), 'new'],
    [field('when'), 'daily'],
    [field('thread'), 'none'],
  ];

  it('nothing when every required field is filled and the rest is empty', () => {
    expect(check(filled)).toEqual({});
  });

  it('required fields left empty', () => {
    expect(check([])).toEqual({
      channel: 'Please fill out this field.',
      kinds: 'Please fill out this field.',
      when: 'Please fill out this field.',
      thread: 'Please fill out this field.',
    });
  });

  it.each([
    ['amount', '12,5', 'Enter a number, for example 12.5.'],
    ['amount', '-1', 'Enter a number from 0 to 100000.'],
    ['amount', '100000.01', 'Enter a number from 0 to 100000.'],
    ['count', '2.5', 'Enter a whole number.'],
    ['product', 'ab', 'Enter at least 3 characters.'],
  ])('%s: %j is refused (%s)', (blockId, typed, message) => {
    expect(check([...filled, [field(blockId), typed]])).toEqual({ [blockId]: message });
  });

  it('more choices than max_selected_items', () => {
    expect(
      check([
        ...filled,
        [field('statuses'), 'REFUNDED'],
        [field('statuses'), 'FAILED'],
        [field('statuses'), 'CANCELED'],
      ]),
    ).toEqual({ statuses: 'Choose at most 2.' });
  });
});

describe('Order Desk’s own modals in the sandbox', () => {
  it('Search orders: every field drawn; text and statuses read back as the submission handler reads them', () => {
    const view = renderSearchModal({ timeZone: 'Europe/Berlin', currency: 'EUR' });
    const html: string = renderModalView({ id: 'V5', view, channel: 'C0SUPPORT' }, context);
    expect(html).not.toContain('is not shown in the sandbox');
    expect(html).toContain('Order ID, reference or product <span class="optional">(optional)</span>');
    const values = readStateValues(
      view,
      [
        ['field_1', 'office'],
        ['field_2', 'COMPLETED'],
        ['field_2', 'REFUNDED'],
      ],
      context,
    );
    expect(values.search_text.text).toEqual({ type: 'plain_text_input', value: 'office' });
    expect(values.search_status.status.selected_options.map((o: { value: string }) => o.value)).toEqual([
      'COMPLETED',
      'REFUNDED',
    ]);
    expect(values.search_from.from).toEqual({ type: 'datepicker', selected_date: null });
    expect(values.search_min_amount.min_amount).toEqual({ type: 'plain_text_input', value: null });
    expect(checkStateValues(view, values)).toEqual({});
  });

  it('Export orders: the default range and "All orders" are sent untouched', () => {
    const view = renderExportModal({ from: '2026-10-23', to: '2026-11-21' });
    const html: string = renderModalView({ id: 'V6', view }, context);
    expect(readStateValues(view, untouched(html), context)).toEqual({
      export_from: { from: { type: 'datepicker', selected_date: '2026-10-23' } },
      export_to: { to: { type: 'datepicker', selected_date: '2026-11-21' } },
      export_status: { status: { type: 'radio_buttons', selected_option: option('All orders', 'all') } },
    });
  });
});
