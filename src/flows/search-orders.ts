import {
  isCalendarDay,
  RESULTS_PER_PAGE,
  renderSearchNoMatch,
  renderSearchResults,
  renderSearchUnavailable,
  SEARCH_STATUSES,
  type SearchField,
  type SearchFilters,
  type SlackMessage,
  TABLE_MAX_ROWS,
} from '../blocks/index.js';
import { nextDay, startOfDay } from '../finance/calendar.js';
import { coverageOfCopy } from '../orders/copy-rule.js';
import type { CopySearch } from '../orders/order-copy.js';
import { MAX_SEARCH_LENGTH, type OrderSummary } from '../partner-api/index.js';
import type { AppDeps } from './deps.js';
import { renderOptions } from './render-options.js';

/** The modal's fields as submitted (an empty optional field may come as null, or not at all). */
export interface SearchForm {
  text?: string | null | undefined;
  statuses?: readonly string[] | undefined;
  from?: string | null | undefined;
  to?: string | null | undefined;
  minAmount?: string | null | undefined;
  maxAmount?: string | null | undefined;
}

export type SearchFormErrors = Partial<Record<SearchField, string>>;

const AMOUNT = /^\d{1,9}(?:[.,]\d{1,2})?$/;

function readAmount(raw: string | null | undefined): { value?: number; error?: string } {
  // "€ 25", "25,50": what people type; a thousands separator ("1,000") is refused, not guessed.
  const text = (raw ?? '').replace(/\s+/g, '').replace(/^[€$£]|[€$£]$/g, '');
  if (!text) return {};
  if (text.startsWith('-')) return { error: 'The amount cannot be negative.' };
  if (!AMOUNT.test(text)) return { error: 'Write the amount as a number, e.g. 25 or 25.50.' };
  return { value: Number(text.replace(',', '.')) };
}

/**
 * Checks the modal's values; errors are keyed by the field they belong to, for Slack to show under
 * each block. At least one field is needed: an empty search would list the whole history.
 */
export function checkSearchForm(
  form: SearchForm,
): { ok: true; filters: SearchFilters } | { ok: false; errors: SearchFormErrors } {
  const errors: SearchFormErrors = {};
  const text = (form.text ?? '').replace(/\s+/g, ' ').trim();
  if (text.length > MAX_SEARCH_LENGTH) errors.text = `At most ${MAX_SEARCH_LENGTH} characters.`;
  const statuses = [...new Set(form.statuses ?? [])];
  if (statuses.some((status) => !(status in SEARCH_STATUSES))) errors.status = 'Pick statuses from the list.';
  const from = form.from || undefined;
  const to = form.to || undefined;
  if (from && !isCalendarDay(from)) errors.from = 'Pick a day.';
  if (to && !isCalendarDay(to)) errors.to = 'Pick a day.';
  else if (from && to && !errors.from && from > to)
    errors.to = 'The last day must be on or after the first day.';
  const min = readAmount(form.minAmount);
  const max = readAmount(form.maxAmount);
  if (min.error) errors.minAmount = min.error;
  if (max.error) errors.maxAmount = max.error;
  else if (min.value !== undefined && max.value !== undefined && min.value > max.value)
    errors.maxAmount = 'The largest amount must be at least the smallest.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const filters: SearchFilters = {
    ...(text ? { t: text } : {}),
    ...(statuses.length ? { s: statuses } : {}),
    ...(from ? { f: from } : {}),
    ...(to ? { u: to } : {}),
    ...(min.value !== undefined ? { a: min.value } : {}),
    ...(max.value !== undefined ? { b: max.value } : {}),
  };
  if (Object.keys(filters).length === 0)
    return {
      ok: false,
      errors: { text: 'Fill in at least one field: text, status, a date or an amount.' },
    };
  return { ok: true, filters };
}

/** The filters as the copy reads them: calendar days become instants in REPORT_TIMEZONE. */
export function copySearchOf(filters: SearchFilters, timeZone: string): Omit<CopySearch, 'limit'> {
  return {
    text: filters.t,
    statuses: filters.s?.flatMap((status) => SEARCH_STATUSES[status] ?? []),
    createdFrom: filters.f ? startOfDay(filters.f, timeZone).toISOString() : undefined,
    createdTo: filters.u ? startOfDay(nextDay(filters.u), timeZone).toISOString() : undefined,
    minAmount: filters.a,
    maxAmount: filters.b,
  };
}

export interface SearchAnswer {
  kind: 'results' | 'no_match' | 'unavailable';
  message: SlackMessage;
  /** The page's orders and the total, as data (Slackbot's search tool); absent when unavailable. */
  found?: { orders: OrderSummary[]; total: number; totalAtLeast: boolean };
}

/** What Search orders needs: the modal, its checks, and the list from the order copy. */
export type SearchDeps = Pick<
  AppDeps,
  | 'currency'
  | 'logger'
  | 'now'
  | 'orderExamples'
  | 'orderCopy'
  | 'orderLinks'
  | 'orderSync'
  | 'reportTimeZone'
>;

/**
 * One page of a search from the modal, one query with an offset on Order Desk's copy (the partner API
 * cannot filter by product, status, date or amount); when the copy cannot answer, the answer says so.
 */
export async function answerOrderFilters(
  deps: SearchDeps,
  filters: SearchFilters,
  offset: number,
): Promise<SearchAnswer> {
  const unavailable = { kind: 'unavailable', message: renderSearchUnavailable() } as const;
  const coverage = await coverageOfCopy(deps);
  if (!coverage) return unavailable;
  const query = copySearchOf(filters, deps.reportTimeZone);
  // The first page is a table of up to 100 (with its first ten as the classic list); later pages, ten.
  const page = (at: number) =>
    deps.orderCopy.search({ ...query, limit: at === 0 ? TABLE_MAX_ROWS : RESULTS_PER_PAGE, offset: at });
  try {
    let start = offset;
    let found = await page(start);
    if (found.orders.length === 0 && found.total > 0) {
      // The matches shrank since this page was shown: the last page there is now.
      start = Math.floor((found.total - 1) / RESULTS_PER_PAGE) * RESULTS_PER_PAGE;
      found = await page(start);
    }
    const options = renderOptions(deps);
    const input = { filters, coverage, timeZone: deps.reportTimeZone };
    const data = { orders: found.orders, total: found.total, totalAtLeast: found.totalIsFloor ?? false };
    if (found.orders.length === 0)
      return { kind: 'no_match', message: renderSearchNoMatch(input, options), found: data };
    return {
      kind: 'results',
      found: data,
      message: renderSearchResults(
        {
          ...input,
          orders: found.orders,
          total: found.total,
          totalAtLeast: found.totalIsFloor,
          offset: start,
        },
        options,
      ),
    };
  } catch (error) {
    deps.logger.warn({ error: (error as Error).message }, 'order copy search failed');
    return unavailable;
  }
}
