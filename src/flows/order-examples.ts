import { toExample } from '../blocks/messages.js';
import type { ExampleOrder } from '../blocks/types.js';
import type { AppLogger } from '../logger.js';
import type { OrderCopy } from '../orders/order-copy.js';

/**
 * The order "e.g. `/order …`" hints quote: the newest in the copy, so an example typed finds an order.
 * Read at most once a minute per process: a usage reply should not wait on the database.
 */
export interface OrderExamples {
  /** The newest known order, or undefined (empty or unavailable copy): hints then show a placeholder. */
  current(): Promise<ExampleOrder | undefined>;
}

const MAX_AGE_MS = 60_000;

export function createOrderExamples(deps: {
  orderCopy: Pick<OrderCopy, 'search'>;
  logger: AppLogger;
  now: () => Date;
}): OrderExamples {
  let cached: { example: ExampleOrder; readAt: number } | undefined;
  let reading: Promise<ExampleOrder | undefined> | undefined;

  async function read(): Promise<ExampleOrder | undefined> {
    try {
      const [newest] = (await deps.orderCopy.search({ limit: 1 })).orders;
      const example = newest ? toExample(newest) : undefined;
      // An empty copy (the first sync has not run yet) is asked again next time, not for a minute.
      cached = example ? { example, readAt: deps.now().getTime() } : undefined;
      return example;
    } catch (error) {
      // A debug line only: the hint falls back to its placeholder; /healthz says when the database is away.
      deps.logger.debug(
        { error: (error as Error).message },
        'no example order: the order copy could not be read',
      );
      return cached?.example;
    }
  }

  return {
    async current() {
      if (cached && deps.now().getTime() - cached.readAt < MAX_AGE_MS) return cached.example;
      reading ??= read().finally(() => {
        reading = undefined;
      });
      return reading;
    },
  };
}
