import type { RenderOptions } from '../blocks/index.js';
import type { AppDeps } from './deps.js';

// What every order answer is rendered with, list or card, so a list links its orders (a table's Order
// cells) wherever a card does (its link button).

/** What rendering an order needs: the currency, the time now and the partner link (ORDER_LINK_TEMPLATE). */
export type RenderDeps = Pick<AppDeps, 'currency' | 'now' | 'orderLinks'>;

export function renderOptions(deps: RenderDeps): RenderOptions {
  return { currency: deps.currency, now: deps.now(), orderLink: deps.orderLinks?.linkFor };
}
