import type { AppLogger } from '../logger.js';

export interface SearchWatch {
  /** A search returned orders, none of which contain the search text: warn once, not per search. */
  unrelated(returned: number): void;
  /** A search returned related orders again: the next unrelated one warns again. */
  related(): void;
}

/**
 * The spec does not name the search parameter. When PARTNER_API_SEARCH_PARAM is wrong, the API
 * ignores it and returns its first page for every search; this says so once in the log (per episode,
 * so a fixed setting followed by a new mistake is seen too), while every user is told each time.
 */
export function createSearchWatch(logger: AppLogger, searchParam: string): SearchWatch {
  let warned = false;
  return {
    unrelated(returned) {
      if (warned) return;
      warned = true;
      logger.warn(
        { event: 'search_unrelated', searchParam, returned },
        'the partner API returned orders that do not contain the search text: check PARTNER_API_SEARCH_PARAM',
      );
    },
    related() {
      warned = false;
    },
  };
}
