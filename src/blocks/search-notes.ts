import { plural, typedText } from './format.js';
import { adminNote, context } from './primitives.js';
import type { Block } from './types.js';

/** The admin's lead when searches come back with orders that do not match: the search parameter's name. */
export const SEARCH_PARAM_HINT =
  'if searches keep returning orders that do not contain the search text, check `PARTNER_API_SEARCH_PARAM` (the name of the partner API’s search parameter).';

/** The partner also returned orders without the search text: counted, not listed, with the admin's hint. */
export function otherOrdersNote(query: string, others: number): Block[] {
  if (others <= 0) return [];
  return [
    context(
      `The partner API also returned ${plural(others, 'other order')} that ${others === 1 ? 'does' : 'do'} not contain ${typedText(query)} in ${others === 1 ? 'its' : 'their'} order ID or reference; ${others === 1 ? 'it is' : 'they are'} not listed.`,
    ),
    adminNote(SEARCH_PARAM_HINT),
  ];
}
