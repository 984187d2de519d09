import type { RenderOptions } from '../blocks/index.js';
import type { AppDeps } from './deps.js';

// What every order answer is rendered with, list or card: the currency, the time now and the link to
// an order's page on the partner platform (a card's link button, a table's Order cells), so a list
// links its orders wherever a card does.

/** What rendering an order needs: the currency, the time now and the partner link (ORDER_LINK_TEMPLATE). */
export type RenderDeps = Pick<AppDeps, 'currency' | 'now' | 'orderLinks'>;

export function renderOptions(deps: RenderDeps): RenderOptions {
  return { currency: deps.currency, now: deps.now(), orderLink: deps.orderLinks?.linkFor };
}
