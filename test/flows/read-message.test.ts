import { describe, expect, it } from 'vitest';
import { type DirectAsk, readDirectMessage } from '../../src/flows/read-message.js';

// What people write in Order Desk's Messages tab, as they wrote it (support agents, finance, and
// customers' messages pasted in), and what each is read as. No model: the same words, the same answer.

const orders = (text: string): DirectAsk => ({ kind: 'orders', text });
const several = (...candidates: string[]): DirectAsk => ({ kind: 'several', candidates });
const keys = (orderId?: string): DirectAsk => ({ kind: 'keys', orderId });
const balance: DirectAsk = { kind: 'balance' };
const help: DirectAsk = { kind: 'help' };

const SUPPORT: Array<[string, DirectAsk]> = [
  ['PO-2026-001150', orders('PO-2026-001150')],
  ['K7QX2M9PLA', orders('K7QX2M9PLA')],
  ['PO-2026-0000', orders('PO-2026-0000')],
  ['status of PO-2026-001150', orders('PO-2026-001150')],
  ['where is my order PO-2026-001150 please, the customer is waiting', orders('PO-2026-001150')],
  ['order K7QX2M9PLA cancelled?', orders('K7QX2M9PLA')],
  ['can you check 001150', orders('001150')],
  ['refund for order PO-2026-001150?', orders('PO-2026-001150')],
  ['PO-2026-001150 and PO-2026-001151, both stuck?', several('PO-2026-001150', 'PO-2026-001151')],
  ['see <https://partner.example/orders/ABC123XYZ0|ABC123XYZ0> thanks <@U0AGENT>', orders('ABC123XYZ0')],
  ['<@U0APP> R&amp;D-2026', orders('R&D-2026')],
  ['photo editor pro 12', orders('photo editor pro 12')],
  ['orders of Photo Editor Pro 12, please', orders('Photo Editor Pro 12')],
  ['find "Office Suite 2024 Professional"', orders('Office Suite 2024 Professional')],
  ['Antivirus Total Security (1 device, 1 year)', orders('Antivirus Total Security (1 device, 1 year)')],
  ['any orders for VPN Unlimited?', orders('VPN Unlimited')],
  ['Lord of the Rings', orders('Lord of the Rings')],
  ['keys for PO-2026-001150', keys('PO-2026-001150')],
  ['Can I get the license keys?', keys()],
  ['customer says the key does not work for PO-2026-001150', keys('PO-2026-001150')],
  ['Hi!', help],
  ['help', help],
  ['thank you', help],
  ['what can I ask?', help],
  ['whats the status', help],
  ['status', help],
  ['', help],
  ['I paid with my credit card but the order never arrived', help],
  ['can you please tell me what happened to the order my customer placed yesterday', help],
];

const FINANCE: Array<[string, DirectAsk]> = [
  ['balance', balance],
  ['Balance?', balance],
  ['what is the balance?', balance],
  ['account balance please', balance],
  ['what is our credit limit', balance],
  ['available funds?', balance],
  ['how much runway do we have left?', balance],
  ['how much did we spend this week', balance],
  ['balance on 2026-12-01?', balance],
  ['is the balance still above 24870?', balance],
];

const PASTED: Array<[string, DirectAsk]> = [
  [
    'Hello, I ordered PO-2026-001150 and PO-2026-001151 last week and still have nothing. Order numbers: PO-2026-001150, PO-2026-001151. Regards, Anna',
    several('PO-2026-001150', 'PO-2026-001151'),
  ],
  ['Hi, I bought 3 licences on 2026-11-30 (order K7QX2M9PLA) but got only one', keys('K7QX2M9PLA')],
  [
    'Customer writes: "I still have no licence code for order #PO-2026-001150, can you resend it?"',
    keys('PO-2026-001150'),
  ],
  ['Dear support, order 48213 placed on 2026-11-30 has not arrived. Thanks, Jo', orders('48213')],
  [
    'Hello, I paid for my order three days ago and I still have not received anything. Please help! Best, Tom',
    help,
  ],
  [
    'Hi, my bank says there were insufficient funds when I tried to pay for the office suite, but the money was taken anyway. What now?',
    help,
  ],
];

describe('reading a direct message to Order Desk', () => {
  it('the table holds at least 30 phrasings', () => {
    expect(SUPPORT.length + FINANCE.length + PASTED.length).toBeGreaterThanOrEqual(30);
  });

  it.each(SUPPORT)('support agent: %j', (text, expected) => {
    expect(readDirectMessage(text)).toEqual(expected);
  });

  it.each(FINANCE)('finance: %j', (text, expected) => {
    expect(readDirectMessage(text)).toEqual(expected);
  });

  it.each(PASTED)('a customer’s message pasted in: %j', (text, expected) => {
    expect(readDirectMessage(text)).toEqual(expected);
  });
});
