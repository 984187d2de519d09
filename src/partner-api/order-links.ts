import { unescapeSlack } from '../text/slack-escapes.js';
import { isValidOrderId } from './index.js';

/** Links to the partner platform's page of an order (ORDER_LINK_TEMPLATE), both ways. */
export interface OrderLinks {
  linkFor(orderId: string): string;
  /** The order ID a link names when it is exactly the template with an ID in place of `{id}`. */
  orderIdIn(url: string): string | undefined;
}

/** From a template the configuration has checked (exactly one `{id}`, after the host). */
export function createOrderLinks(template: string | undefined): OrderLinks | undefined {
  if (!template) return undefined;
  const at = template.indexOf('{id}');
  const prefix = template.slice(0, at);
  const suffix = template.slice(at + '{id}'.length);
  return {
    linkFor: (orderId) => `${prefix}${encodeURIComponent(orderId)}${suffix}`,
    orderIdIn(rawUrl) {
      const url = unescapeSlack(rawUrl);
      if (url.length <= prefix.length + suffix.length) return undefined;
      if (!url.startsWith(prefix) || !url.endsWith(suffix)) return undefined;
      let orderId: string;
      try {
        orderId = decodeURIComponent(url.slice(prefix.length, url.length - suffix.length));
      } catch {
        return undefined;
      }
      // Not an order ID (a path below it, a query, "../x"): not an order link, and never sent to the partner.
      return isValidOrderId(orderId) ? orderId : undefined;
    },
  };
}
