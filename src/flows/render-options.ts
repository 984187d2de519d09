import type { AppDeps } from '../app/deps.js';
import type { RenderOptions } from '../blocks/index.js';

// What every order answer is rendered with: the currency and the time now, and on a card the partner link.

/** What rendering an order needs: the currency, the time now and, on a card, the partner link. */
export type RenderDeps = Pick<AppDeps, 'currency' | 'now' | 'orderLinks'>;

export function renderOptions(deps: Pick<RenderDeps, 'currency' | 'now'>): RenderOptions {
  return { currency: deps.currency, now: deps.now() };
}

/** For an order card: with the link to the order's page on the partner platform, when one is set up. */
export function cardOptions(deps: RenderDeps): RenderOptions {
  return { ...renderOptions(deps), orderLink: deps.orderLinks?.linkFor };
}
