import {
  endpointOf,
  isPartnerApiError,
  type OrderSummary,
  type PartnerApiError,
} from '../partner-api/index.js';
import { cutToLength } from '../text/cut.js';
import { copyStamp } from './copy-notes.js';
import { escapeCut, escapeMrkdwn, plural, SHOWN, shorten, typedText } from './format.js';
import { orderRows, type RowOptions } from './order-list.js';
import { orderTable } from './order-table.js';
import { adminNote, context, divider, message, section } from './primitives.js';
import { SEARCH_PARAM_HINT } from './search-notes.js';
import { searchButtonBlock } from './search-orders.js';
import type { Block, ExampleOrder, RecentOrdersShown, RenderOptions, SlackMessage } from './types.js';

/** ", e.g. `/order A` or `/order B`": the example order's names as commands; nothing without one. */
function forExample(command: string, example: ExampleOrder | undefined, withReference: boolean): string {
  if (!example) return '';
  const forms = [example.id, ...(withReference && example.reference ? [example.reference] : [])];
  return `, e.g. ${forms.map((form) => `\`${command} ${escapeCode(form)}\``).join(' or ')}`;
}

/** How to use `/order`, with the example order when there is one (a real order, never an invented one). */
export function orderUsage(example: ExampleOrder | undefined): string {
  return `*How to look up an order:* \`/order <order ID or reference>\`${forExample('/order', example, true)}. A partial reference lists every match.`;
}
const SEARCH_USAGE = '*Know only the product, the day or the amount?* Search by any of them, and by status:';
/** `/order-keys` with no order ID: how to use it, with the example order when there is one. */
export function keysUsage(example: ExampleOrder | undefined): string {
  return `*Which order?* Type \`/order-keys <order ID or reference>\`${forExample('/order-keys', example, false)}. Use \`/order\` to find an order.`;
}

/** Inline code cannot hold a backtick; an ID or reference never should, but one from the API might. */
const escapeCode = (text: string) => escapeCut(text.replace(/`/g, 'ˋ'), SHOWN.reference);

export const KEYS_USAGE =
  '*How to get an order’s keys:* `/order-keys <order ID or reference>` (authorised agents only; the keys are shown only to you).';

/** No recent orders: "no orders yet" only when the partner's own total agrees, else what was seen. */
function noRecentOrders(recent: RecentOrdersShown): Block[] {
  if (recent.hits <= 0) return [section('There are no orders on the account yet.')];
  return [
    section(
      `:grey_question: The partner API listed no orders, although it reports ${recent.hits.toLocaleString('en-US')}. Try again in a minute; if it keeps happening, escalate with the trace ID.`,
    ),
    ...(recent.traceId ? [context(`Trace ID \`${escapeMrkdwn(recent.traceId)}\``)] : []),
  ];
}

/** The most recent orders (`/order` alone, the Home tab): as rows with Open, or as a table (`'table'`). */
export function recentOrdersBlocks(
  recent: RecentOrdersShown | PartnerApiError,
  options: RenderOptions,
  rows: RowOptions | 'table' = {},
): Block[] {
  if (isPartnerApiError(recent))
    return partnerFailureBlocks(':warning: *The most recent orders could not be loaded.*', recent);
  if (recent.orders.length === 0) return noRecentOrders(recent);
  const list =
    rows === 'table'
      ? orderTable(recent.orders, options, 'Most recent orders').blocks
      : orderRows(recent.orders, options, rows);
  if (!recent.fromCopy) return list;
  return [copyStamp(recent.fromCopy.coverage, options, recent.fromCopy.failure), ...list];
}

/** A partner failure inside a larger view: the lead and the partner's sentence, the trace ID below it. */
export function partnerFailureBlocks(lead: string, error: PartnerApiError): Block[] {
  return [section(`${lead} ${error.userMessage}`), ...traceContext(error), ...partnerAdminNote(error)];
}

/** `/order` with no text: how to use it, and the most recent orders to start from. */
export function renderOrderHelp(
  recent: RecentOrdersShown | PartnerApiError,
  options: RenderOptions,
  example: ExampleOrder | undefined,
): SlackMessage {
  const newest = isPartnerApiError(recent) ? undefined : recent.orders[0];
  const listed = !isPartnerApiError(recent) && recent.orders.length > 0;
  const help = (list: RowOptions | 'table'): Block[] => [
    section(orderUsage(newest ? toExample(newest) : example)),
    section(SEARCH_USAGE),
    searchButtonBlock(),
    section(KEYS_USAGE),
    divider(),
    // A table's caption is its title: said once.
    ...(listed && list !== 'table' ? [section('*Most recent orders*')] : []),
    ...recentOrdersBlocks(recent, options, list),
  ];
  if (!listed) return { text: 'How to use /order', blocks: help({}) };
  return { text: 'How to use /order', blocks: help('table'), classic: help({}) };
}

export function toExample(order: OrderSummary): ExampleOrder {
  return { id: order.id, reference: order.referenceId, productTitle: order.item.title };
}

function howToSearch(example: ExampleOrder | undefined): string {
  const id = example ? ` (e.g. \`${escapeCode(example.id)}\`)` : '';
  const reference = example?.reference ? ` (e.g. \`${escapeCode(example.reference)}\`)` : '';
  return `Search by the full order ID${id} or by your reference${reference}; part of a reference or a product name also works.`;
}

// An amount as people type one: digits with cents, or a currency sign ("136.25", "€136", "136,25 EUR").
const AMOUNT =
  /^(?:[€$£]\s?\d[\d,.]*|\d[\d,]*[.,]\d{1,2}(?:\s?(?:€|EUR|USD|GBP|\$|£))?|\d[\d,.]*\s?(?:€|EUR|USD|GBP|\$|£))$/i;

/** Nothing to list for a search; `hits`, the partner's own total, may say there was something. */
export function renderNoMatch(
  query: string,
  hits = 0,
  traceId?: string,
  example?: ExampleOrder,
): SlackMessage {
  if (hits > 0)
    return message(`The partner API listed no orders for “${shorten(query)}”`, [
      section(
        `:grey_question: The partner API listed no orders for ${typedText(query)}, although it reports ${plural(hits, 'match', 'matches')}. Try again in a minute; if it keeps happening, escalate with the trace ID.`,
      ),
      ...(traceId ? [context(`Trace ID \`${escapeMrkdwn(traceId)}\``)] : []),
    ]);
  // `/order` looks in IDs, references and titles; the form searches by amount, day and status too.
  const amount = AMOUNT.test(query.trim())
    ? ' It looks like an amount: `/order` searches IDs, references and product names, and *Search orders* searches by amount.'
    : '';
  return message(`No order matches “${shorten(query)}”`, [
    section(`:mag: No order matches ${typedText(query)}.${amount}`),
    context(`${howToSearch(example)} Type \`/order\` alone to see the most recent orders.`),
    section(SEARCH_USAGE),
    searchButtonBlock(),
  ]);
}

/** Orders came back, but none contains the search text: most likely the API ignored the search. */
export function renderUnrelatedResults(
  query: string,
  returned: number,
  traceId: string | undefined,
): SlackMessage {
  const orders = returned === 1 ? 'an order' : `${returned.toLocaleString('en-US')} orders`;
  return message(`The partner API returned orders that do not match “${shorten(query)}”`, [
    section(
      `:warning: *The partner API returned ${orders} that ${returned === 1 ? 'does' : 'do'} not match* ${typedText(query)}: none of them contains it in its order ID or reference, so they are not listed. If this keeps happening, ask your Order Desk admin.`,
    ),
    ...(traceId ? [context(`Trace ID \`${escapeMrkdwn(traceId)}\``)] : []),
    adminNote(SEARCH_PARAM_HINT),
  ]);
}

/** A failure's trace ID on its own line below the sentence that points to it ("the reference below"). */
function traceContext(error: PartnerApiError): Block[] {
  return error.traceId
    ? [context(`Reference for escalation: trace ID \`${escapeMrkdwn(error.traceId)}\``)]
    : [];
}

const ERROR_TITLES: Record<PartnerApiError['kind'], string> = {
  unauthorized: ':lock: Order Desk cannot sign in to the partner API',
  forbidden: ':no_entry: The partner API refused access',
  not_found: ':mag: Order not found',
  not_ready: ':hourglass_flowing_sand: Keys not available yet',
  rate_limited: ':traffic_light: Too many requests right now',
  unavailable: ':warning: The partner API is unavailable',
  timeout: ':stopwatch: The partner API is not answering',
  invalid_response: ':warning: Unexpected answer from the partner API',
  invalid_input: ':pencil2: That does not look right',
  mismatch: ':no_entry: The partner API answered for another order',
};

const PARTNER_MESSAGE_SHOWN = 200;

/** The partner's own words, when it sent any: often the most useful line for the agent. */
function partnerSaid(error: PartnerApiError): Block[] {
  if (!error.upstreamMessage) return [];
  const code = error.code ? ` (\`${escapeCut(error.code, SHOWN.id)}\`)` : '';
  return [
    context(
      `The partner API said${code}: “${escapeMrkdwn(cutToLength(error.upstreamMessage.replace(/\s+/g, ' '), PARTNER_MESSAGE_SHOWN))}”`,
    ),
  ];
}

/** The setting behind a failure that only an admin can fix, in the admin's small print. */
export function partnerAdminNote(error: PartnerApiError): Block[] {
  const { status } = error;
  if (error.kind === 'unauthorized') return [adminNote('check the partner API key, `PARTNER_API_KEY`.')];
  if (error.kind === 'invalid_input' && status !== undefined)
    return [
      adminNote(
        endpointOf(error.operation) === 'list'
          ? 'check the names of the list’s query parameters: `PARTNER_API_SEARCH_PARAM`, `PARTNER_API_PAGE_PARAM`, `PARTNER_API_LIMIT_PARAM`.'
          : 'check the `PARTNER_API_*` settings.',
      ),
    ];
  if (error.kind === 'invalid_response' && status !== undefined && status >= 300 && status < 400)
    return [adminNote('check `PARTNER_API_BASE_URL`: the partner API answered with a redirect.')];
  return [];
}

/** One clear message per error kind, with the trace ID for escalation; never a stack or a body. */
export function renderPartnerError(error: PartnerApiError, subject?: string): SlackMessage {
  // A 400 from the API is not the agent's typing: Order Desk's request was refused.
  const title =
    error.kind === 'invalid_input' && error.status !== undefined
      ? ':warning: The partner API refused the request'
      : ERROR_TITLES[error.kind];
  const about = subject ? ` (${typedText(subject)})` : '';
  const other =
    error.kind === 'mismatch'
      ? `\nThe answer named ${error.answeredOrderId ? `order \`${error.answeredOrderId}\`` : 'an order ID that is not valid'}.`
      : '';
  return message(`${title.replace(/^:[a-z_]+: /, '')}${subject ? ` (${shorten(subject)})` : ''}`, [
    section(`*${title}*${about}\n${error.userMessage}${other}`),
    ...partnerSaid(error),
    ...traceContext(error),
    ...partnerAdminNote(error),
  ]);
}

export function renderNotice(text: string, detail?: string): SlackMessage {
  return {
    // The notification shows plain words: no emoji codes, no mrkdwn marks.
    text: cutToLength(text.replace(/:[a-z0-9_+-]+:\s*/g, '').replace(/[*_`]/g, ''), 300),
    blocks: [section(text), ...(detail ? [context(detail)] : [])],
  };
}

/** The message shortcut found nothing that matches an order. */
export function renderNoOrdersInMessage(
  searched: readonly string[],
  example: ExampleOrder | undefined,
): SlackMessage {
  const what =
    searched.length === 0
      ? ':mag: *No order ID or reference found in that message.*'
      : `:mag: *No order matches ${searched.slice(0, 5).map(typedText).join(', ')}${searched.length > 5 ? ` or ${searched.length - 5} more` : ''}* from that message.`;
  return message('No order found in that message', [
    section(what),
    context(
      `To search by hand, type \`/order <order ID or reference>\` in a channel (slash commands do not work in threads)${forExample('/order', example, false)}; part of a reference or a product name also works.`,
    ),
  ]);
}

export interface OrdersInMessage {
  orders: readonly OrderSummary[];
  searched: number;
  skipped: number;
  failures: readonly PartnerApiError[];
}

/** Several orders found in one message: one list, each with Open. */
export function renderOrdersInMessage(input: OrdersInMessage, options: RenderOptions): SlackMessage {
  const notes: string[] = [];
  if (input.skipped > 0)
    notes.push(
      `The message has ${input.searched + input.skipped} possible IDs; the first ${input.searched} were looked up.`,
    );
  if (input.failures.length > 0) {
    const traces = input.failures.flatMap((failure) =>
      failure.traceId ? [`\`${escapeMrkdwn(failure.traceId)}\``] : [],
    );
    notes.push(
      `${input.failures.length} lookup${input.failures.length === 1 ? '' : 's'} failed: ${escapeMrkdwn(input.failures[0]?.userMessage ?? '')}${traces.length ? ` Trace ID ${traces.join(', ')}.` : ''}`,
    );
  }
  const count = input.orders.length;
  return message(`${count} order${count === 1 ? '' : 's'} found in that message`, [
    section(`*${count} order${count === 1 ? '' : 's'} found in that message*`),
    divider(),
    ...orderRows(input.orders.slice(0, 20), options),
    ...(notes.length ? [context(notes.join('\n'))] : []),
  ]);
}
