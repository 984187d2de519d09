import type { OrderPage } from './types.js';

export type FetchPage = (page: number) => Promise<OrderPage>;

/**
 * Walks every page in order, keeping up to `prefetch` pages in flight ahead of the reader. Memory
 * holds at most `prefetch` + 1 pages, whatever the length of the history.
 */
export async function* walkPages(fetchPage: FetchPage, prefetch: number): AsyncGenerator<OrderPage> {
  const first = await fetchPage(1);
  yield first;
  const totalPages = first.totalPages ?? 1;
  let nextPage = 2;
  const window: Promise<OrderPage>[] = [];
  const fill = () => {
    while (window.length < prefetch && nextPage <= totalPages) {
      const pending = fetchPage(nextPage++);
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
}
