import { type AppEnv, TUNING } from '../../src/config/index.js';
import {
  isPartnerApiError,
  type OrderSummary,
  orderContainsText,
  type PartnerClient,
} from '../../src/partner-api/index.js';
import { orderToCompare, readAmount } from './amount.js';
import { decide, type Finding, fix, notChecked, ok } from './findings.js';
import { listNotFound, listUnanswered } from './partner-address.js';

// The partner's side of the check: the address, the key, the search parameter and what item.amount
// means. At most four list requests (the newest orders, a search) and one keys request, each under the
// client's timeout. When the list cannot be read, the checks that need an order say they did not run.

/** Orders read to find the newest one and one that can tell what item.amount is. */
const ORDERS_READ = 100;

type PartnerSettings = Pick<AppEnv, 'PARTNER_API_BASE_URL' | 'PARTNER_API_SEARCH_PARAM' | 'ORDER_AMOUNT_IS'>;

export async function checkPartner(client: PartnerClient, env: PartnerSettings): Promise<Finding[]> {
  let newest: OrderSummary[];
  let hits: number;
  try {
    const recent = await client.orders.recent(ORDERS_READ);
    newest = recent.orders;
    hits = recent.hits;
    if (recent.hits > 0 && newest.length === 0)
      return [
        fix(`The partner says it has ${recent.hits} orders but listed none: ${askPartner(recent.traceId)}`),
        ...needingAnOrder(env, 'because the partner listed no order'),
      ];
  } catch (error) {
    return [
      await listFailure(error, env),
      ...needingAnOrder(env, 'because the order list could not be read'),
    ];
  }
  const findings = [ok(`The partner key works: the partner listed its orders (${hits} in all).`)];
  const first = newest[0];
  if (!first) {
    findings.push(
      decide(
        'The partner has no orders yet, so the search parameter and what item.amount means cannot be ' +
          'checked: run `npm run check` again after the first order.',
      ),
    );
    return findings;
  }
  findings.push(await checkSearch(client, first, env), await checkAmount(client, newest, env));
  return findings;
}

/** Searching for an order's exact ID must answer that order alone, or the search parameter is ignored. */
async function checkSearch(
  client: PartnerClient,
  order: OrderSummary,
  env: PartnerSettings,
): Promise<Finding> {
  const param = `PARTNER_API_SEARCH_PARAM=${env.PARTNER_API_SEARCH_PARAM}`;
  try {
    const result = await client.orders.find(order.id);
    const found = result.orders.some((candidate) => candidate.id === order.id);
    if (found && result.orders.every((candidate) => orderContainsText(candidate, order.id)))
      return ok(`A search for order ${order.id} finds exactly that order (${param} is right).`);
    const answered = found
      ? `${result.orders.length} orders, most of which do not contain that ID`
      : result.orders.length === 0
        ? 'no order'
        : `${result.orders.length} other orders`;
    return fix(
      `A search for order ${order.id} answered ${answered}: the partner ignores ${param}. ` +
        "Set PARTNER_API_SEARCH_PARAM to the name of the partner's search parameter (ask the partner).",
    );
  } catch (error) {
    return partnerFailure(`A search for order ${order.id} (${param}) failed`, error);
  }
}

/** Compares one completed order's item.amount with its keys answer's total_debit (nothing else is read). */
async function checkAmount(
  client: PartnerClient,
  orders: readonly OrderSummary[],
  env: PartnerSettings,
): Promise<Finding> {
  const setting = `ORDER_AMOUNT_IS=${env.ORDER_AMOUNT_IS}`;
  const order = orderToCompare(orders);
  if (!order)
    return decide(
      `None of the newest ${orders.length} orders is completed with a quantity above 1, so whether item.amount ` +
        `is the line total or the unit price cannot be checked yet (${setting}): run the check again later.`,
    );
  const amount = order.item.amount ?? 0;
  const quantity = order.item.quantity ?? 0;
  let totalDebit: number | null;
  try {
    // The keys answer holds the order's keys: only total_debit is kept, the rest is dropped here.
    totalDebit = (await client.orders.keys(order.id)).totalDebit;
  } catch (error) {
    return partnerFailure(
      `The keys answer of order ${order.id} (to compare its amount) could not be read`,
      error,
    );
  }
  if (totalDebit === null)
    return decide(
      `The keys answer of order ${order.id} has no total_debit, so whether item.amount is the line total ` +
        `or the unit price cannot be told (${setting}): ask the partner.`,
    );
  const figures = `order ${order.id}: quantity ${quantity}, item.amount ${amount}, total_debit ${totalDebit}`;
  const reading = readAmount(amount, quantity, totalDebit);
  if (reading === 'unclear')
    return decide(
      `item.amount is neither the line total nor the unit price (${figures}): ask the partner what it ` +
        `is, then set ORDER_AMOUNT_IS (now ${env.ORDER_AMOUNT_IS}).`,
    );
  const meaning = reading === 'total' ? 'the line total' : 'the unit price';
  if (reading === env.ORDER_AMOUNT_IS)
    return ok(`item.amount is ${meaning} (${figures}): ${setting} is right.`);
  return fix(
    `item.amount is ${meaning} (${figures}), but ${setting}: set ORDER_AMOUNT_IS=${reading}, or spend, ` +
      'runway and exports are off by the quantity.',
  );
}

/** The two checks that read an order: said not to have run, rather than left out. */
function needingAnOrder(env: PartnerSettings, why: string): Finding[] {
  return [
    notChecked(`whether the partner reads PARTNER_API_SEARCH_PARAM=${env.PARTNER_API_SEARCH_PARAM}`, why),
    notChecked(`what item.amount is (ORDER_AMOUNT_IS=${env.ORDER_AMOUNT_IS})`, why),
  ];
}

/**
 * The list is the first request: a 404 there, or no answer at all, is most likely the address in
 * PARTNER_API_BASE_URL (partner-address.ts); any other failure is said as for any request.
 */
async function listFailure(error: unknown, env: PartnerSettings): Promise<Finding> {
  const what = 'The partner refused to list orders';
  if (!isPartnerApiError(error)) return partnerFailure(what, error);
  if (error.kind === 'not_found') return listNotFound(env.PARTNER_API_BASE_URL, error.status, error.traceId);
  if (error.kind === 'unavailable' && error.status === undefined)
    return listUnanswered(env.PARTNER_API_BASE_URL, (where) =>
      fix(
        `The order list request got no answer, though ${where} (PARTNER_API_BASE_URL) accepts ` +
          `connections: ${askPartner(error.traceId)}`,
      ),
    );
  return partnerFailure(what, error);
}

function partnerFailure(what: string, error: unknown): Finding {
  if (!isPartnerApiError(error)) return fix(`${what}: ${(error as Error).message}`);
  const trace = error.traceId ? ` (trace_id ${error.traceId})` : '';
  const status = error.status === undefined ? '' : `, HTTP ${error.status}`;
  switch (error.kind) {
    case 'unauthorized':
    case 'forbidden':
      return fix(
        `${what}: it does not accept PARTNER_API_KEY${status}${trace}. Check the key, and that it is ` +
          'the key of this PARTNER_API_BASE_URL.',
      );
    case 'timeout':
      return fix(
        `${what}: no answer within ${TUNING.partnerTimeoutMs / 1000} s${trace}. Check PARTNER_API_BASE_URL.`,
      );
    case 'invalid_response':
      return fix(
        `${what}: the answer is not the partner API's${status}${trace}. Check PARTNER_API_BASE_URL.`,
      );
    default:
      return fix(`${what} (${error.kind}${status})${trace}: ${askPartner(error.traceId)}`);
  }
}

function askPartner(traceId: string | undefined): string {
  return traceId
    ? `try again in a few minutes; if it lasts, ask the partner with trace_id ${traceId}.`
    : 'try again in a few minutes; if it lasts, ask the partner.';
}
