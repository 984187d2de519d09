import type { OrderPage } from './types.js';

export type FetchPage = (page: number, signal: AbortSignal) => Promise<OrderPage>;

/**
 * Walks every page in order, up to `prefetch` pages in flight ahead of the reader. A reader stopping early
 * ends those: pages waiting for a turn are never sent, so its next lookup does not queue behind them.
 */
export async function* walkPages(fetchPage: FetchPage, prefetch: number): AsyncGenerator<OrderPage> {
  const readAhead = new AbortController();
  try {
    const first = await fetchPage(1, readAhead.signal);
    yield first;
    const totalPages = first.totalPages ?? 1;
    let nextPage = 2;
    const window: Promise<OrderPage>[] = [];
    const fill = () => {
      while (window.length < prefetch && nextPage <= totalPages) {
        const pending = fetchPage(nextPage++, readAhead.signal);
        // A reader that stops early leaves these unawaited; their failures must not become unhandled.
        pending.catch(() => undefined);
        window.push(pending);
      }
    };
    fill();
    while (window.length > 0) {
      const page = await (window.shift() as Promise<OrderPage>);
      fill();
      yield page;
    }
  } finally {
    readAhead.abort(new Error('the reader stopped'));
  }
}
