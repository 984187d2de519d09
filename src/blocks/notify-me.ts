import { ActionIds } from './action-ids.js';
import { encodeButton } from './button-values.js';
import { button } from './primitives.js';

/** "Notify me" on a card (or a "keys not available yet" answer) of an order that has not settled. */
export function notifyMeButton(orderId: string) {
  return button(ActionIds.notifyMe, 'Notify me', encodeButton({ o: orderId }));
}
