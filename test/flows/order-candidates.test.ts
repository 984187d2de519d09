import { describe, expect, it } from 'vitest';
import { orderCandidates } from '../../src/flows/orders-in-message.js';

// "Look up orders" on a customer's message: which words are worth asking the partner about.
describe('the words of a message that could name an order', () => {
  it.each([
    ['where are my keys for PO-2026-001199?', ['PO-2026-001199']],
    ['where are my keys for PO-DEMO-IMAGES?', ['PO-DEMO-IMAGES']],
    ['order K7QX2M9PLA and k7qx2m9pla again', ['K7QX2M9PLA']],
    ['see <https://partner.example/orders/ABC123XYZ0|ABC123XYZ0>, thanks <@U0AGENT>', ['ABC123XYZ0']],
    ['Hello, any news about my order? Thanks a lot', []],
    ['Re-send the e-mail please, ASAP', []],
  ])('%s', (text, expected) => {
    expect(orderCandidates(text)).toEqual(expected);
  });
});
