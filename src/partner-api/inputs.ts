import { PartnerApiError } from './errors.js';

// An allowlist: what could become a path segment, a query or a fragment ("../x", "a?b", "%2e%2e") fails it.
const ORDER_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_SEARCH_LENGTH = 100;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is its purpose
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
export const MAX_PAGE_SIZE = 500;

export function isValidOrderId(value: string): boolean {
  return ORDER_ID_PATTERN.test(value);
}

/** An input refused before any request, with the sentence the agent reads. */
const refused = (operation: string, userMessage: string) =>
  new PartnerApiError({ kind: 'invalid_input', operation, userMessage });

/** Returns the order ID encoded as exactly one path segment, or throws invalid_input. */
export function orderIdPathSegment(rawOrderId: string, operation: string): string {
  const orderId = rawOrderId.trim();
  if (isValidOrderId(orderId)) return encodeURIComponent(orderId);
  throw refused(
    operation,
    `${describeInput(orderId)} is not a valid order ID. Order IDs use only letters, digits, \`-\` and \`_\` (1 to 64 characters).`,
  );
}

/** Trims search text, drops control characters and refuses text over the length cap. */
export function cleanSearchText(raw: string, operation: string): string {
  const text = raw.replace(CONTROL_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
  if (text.length <= MAX_SEARCH_LENGTH) return text;
  throw refused(
    operation,
    `That search is ${text.length} characters long; the limit is ${MAX_SEARCH_LENGTH}. Search by order ID or reference.`,
  );
}

export function checkPageSize(limit: number, operation: string): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw refused(operation, `A page holds 1 to ${MAX_PAGE_SIZE} orders; ${String(limit)} was asked for.`);
}

export function checkPageNumber(page: number, operation: string): void {
  if (!Number.isInteger(page) || page < 1)
    throw refused(operation, `Pages are numbered from 1; ${String(page)} was asked for.`);
}

/** Quotes user input for a message without echoing a wall of text back. */
function describeInput(value: string): string {
  if (value.length === 0) return 'An empty value';
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return `“${shown.replace(/[`\n\r]/g, ' ')}”`;
}
