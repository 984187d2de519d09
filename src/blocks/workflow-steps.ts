import type { BalanceReading, BalanceState } from '../finance/balance-reading.js';
import type { PartnerApiError } from '../partner-api/index.js';
import { cutToLength } from '../text/cut.js';
import type { DenialReason } from './access.js';
import { missingFigures, noCompletedOrderText } from './finance.js';
import { formatMoney, plural, SHOWN, shorten } from './format.js';

// What a Workflow Builder step says when it fails (functions.completeError, which Slackbot shows the
// workflow's author and runner): for someone who built a workflow, what happened, then what to do.
// Plain sentences: no emoji codes, no mrkdwn, nothing a mention could be made of, and never a key.

/** The step names as Workflow Builder shows them (manifest.yml `functions.*.title`). */
export const STEP_TITLES = {
  lookup_order: 'Look up an order',
  account_balance: 'Account balance',
} as const;

export type StepId = keyof typeof STEP_TITLES;

/** User input quoted back on one line, short, without the angle brackets a mention is made of. */
const quoted = (text: string) => `“${shorten(text).replace(/[<>]/g, '')}”`;
const who = (userId: string) => `the person this step ran for (user ${userId})`;
const traceSentence = (traceId: string | undefined) =>
  traceId ? ` Reference (partner trace ID): ${traceId}.` : '';

/** The partner's sentence, then its reference, which here follows (without one: the time of the run). */
function partnerSentence(error: PartnerApiError): string {
  const pointer = error.traceId ? 'the reference that follows' : 'the time the workflow ran';
  return `${error.userMessage.replace('the reference below', pointer)}${traceSentence(error.traceId)}`;
}

/** The user input is missing or is not a Slack user ID: the step was set up wrong. */
export function stepUserInputInvalid(step: StepId): string {
  return `${STEP_TITLES[step]}: the step's person input is empty or is not a Slack user. Open the workflow in Workflow Builder and set it to "Person who used this workflow", so Order Desk can check who the step runs for.`;
}

export function stepOrderInputEmpty(): string {
  return `${STEP_TITLES.lookup_order}: the "Order ID or reference" input is empty. Give the step an order ID or reference, e.g. from a form question the workflow asks, and make that question required.`;
}

/** A number too long to be read exactly was mapped into the order input. */
export function stepOrderInputNumber(): string {
  return `${STEP_TITLES.lookup_order}: the "Order ID or reference" input came as a number too long to be read exactly. Map a text into it instead (e.g. a form question with a short text answer, not a number answer).`;
}

/** A guest, a Slack Connect user or a deactivated account sees no `what`, whatever the step. */
function staffOnly(
  what: string,
): Record<'guest' | 'external' | 'deactivated' | 'unknown_user', (userId: string) => string> {
  return {
    guest: (userId) =>
      `Order Desk shows no ${what}: ${who(userId)} has a guest account, and Order Desk is for your organisation's own staff. Keep this workflow to full members, or ask your Order Desk admin (a guest is let in only when ORDER_ALLOWED_USERS names them).`,
    external: (userId) =>
      `Order Desk shows no ${what}: ${who(userId)} belongs to another organisation (Slack Connect), and Order Desk data stays inside your organisation. Keep this workflow to your own members, e.g. out of shared channels.`,
    deactivated: (userId) => `Order Desk shows no ${what}: the account of ${who(userId)} is deactivated.`,
    unknown_user: (userId) =>
      `Order Desk shows no ${what}: Slack does not know ${who(userId)} (no such user in this workspace). Check the step's person input; running it again will not change this.`,
  };
}

/** Why a step shows nothing to its person: the lookup by /order's rule, the balance by the Home tab's. */
const STEP_DENIED: Record<StepId, Record<DenialReason, (userId: string) => string>> = {
  lookup_order: {
    ...staffOnly('order data'),
    not_listed: (userId) =>
      `${who(userId)} is not on the list of people who may look orders up. Ask your Order Desk admin to add them (ORDER_ALLOWED_USERS: the person, or a user group of theirs).`,
    nobody_configured: () =>
      'order lookups are switched off in Order Desk. Ask your Order Desk admin (ORDER_ALLOWED_USERS).',
    lookup_failed: (userId) =>
      `Order Desk could not confirm with Slack who ${who(userId)} is, so it shows no order data. Run the workflow again in a minute; if this keeps happening, ask your Order Desk admin.`,
  },
  account_balance: {
    ...staffOnly('account figures'),
    not_listed: (userId) =>
      `the balance is for finance only, and ${who(userId)} is not in finance. Check that the step's person input is "Person who used this workflow"; if they should see the balance, ask your Order Desk admin to add them (FINANCE_ALLOWED_USERS: the person, or a user group of theirs).`,
    nobody_configured: () =>
      'nobody is set up to see the balance in Order Desk yet. Ask your Order Desk admin (FINANCE_ALLOWED_USERS).',
    lookup_failed: (userId) =>
      `Order Desk could not confirm with Slack that ${who(userId)} is in finance, so it shows no figures. Run the workflow again in a minute; if this keeps happening, ask your Order Desk admin.`,
  },
};

/** The person the step ran for may not see what it gives. */
export function stepDenied(step: StepId, reason: DenialReason, userId: string): string {
  return `${STEP_TITLES[step]}: ${STEP_DENIED[step][reason](userId)}`;
}

/** The partner API failed (or refused the input) and Order Desk's copy could not stand in. */
export function stepLookupFailed(query: string, error: PartnerApiError): string {
  return `${STEP_TITLES.lookup_order}: Order Desk could not look up ${quoted(query)}. ${partnerSentence(error)}`;
}

/** A reference shared by several orders: a step has one set of outputs, so it cannot choose. */
export function stepSeveralOrders(
  query: string,
  orderIds: readonly string[],
  traceId: string | undefined,
): string {
  const shown = orderIds
    .slice(0, 5)
    .map((id) => cutToLength(id, SHOWN.id))
    .join(', ');
  const more = orderIds.length > 5 ? ` and ${orderIds.length - 5} more` : '';
  return `${STEP_TITLES.lookup_order}: ${quoted(query)} is the reference of ${plural(orderIds.length, 'order')} (${shown}${more}), and the step can answer with only one. Give it the order ID instead.${traceSentence(traceId)}`;
}

/** Why there are no balance figures to give, from the balance source's own state. */
export function stepBalanceUnavailable(state: Exclude<BalanceState, { kind: 'reading' }>): string {
  const title = `${STEP_TITLES.account_balance}: `;
  switch (state.kind) {
    case 'no_completed_order':
      return `${title}${noCompletedOrderText(state)} It will be once an order completes.`;
    case 'not_reported':
      return `${title}the balance is not available: the partner API reports it with the keys of a completed order, and its answer for order ${state.orderId} came without it.${traceSentence(state.traceId)} If this lasts, ask your account manager on the platform.`;
    case 'error':
      // The partner's sentence says when to try again: one figure, not a second one of ours.
      return `${title}the balance could not be read. ${partnerSentence(state.error)}`;
  }
}

/** A reading without the balance: what it did carry (the credit limit), and which figure is missing. */
export function stepBalanceMissing(
  reading: Pick<BalanceReading, 'balance' | 'creditLimit' | 'traceId'>,
  currency: string | undefined,
): string {
  const limit =
    reading.creditLimit === null ? '' : ` The credit limit is ${formatMoney(reading.creditLimit, currency)}.`;
  return `${STEP_TITLES.account_balance}: ${missingFigures(reading)}${limit}${traceSentence(reading.traceId)} If this lasts, ask your account manager on the platform.`;
}

/** A bug: the author gets an ID to give their admin, who finds it in the log. */
export function stepUnexpected(step: StepId, errorId: string): string {
  return `${STEP_TITLES[step]}: something went wrong in Order Desk (error ID ${errorId}). Run the workflow again; if it keeps happening, give your Order Desk admin this error ID.`;
}
