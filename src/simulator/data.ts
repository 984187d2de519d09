import { hashSeed, randomString, seededRandom } from './random.js';

// The simulator's own model of the partner account. It deliberately shares nothing with the client's
// schemas: it is a second reading of the spec, so a misreading cannot hide on both sides of a test.

export interface SimOrder {
  id: string;
  reference_id: string;
  status: string;
  item: { id: string; title: string; quantity: number; amount: number };
  created_at: string;
  /** Key types to deliver, cycled over the keys; defaults to all "text". */
  keyTypes: string[];
}

export interface SimKey {
  value: string;
  type: string;
}

const ID_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const KEY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';

const PRODUCTS = [
  'Office Suite 2024 Professional',
  'Antivirus Total Security (1 device, 1 year)',
  'Photo Editor Pro 12',
  'Cloud Backup 1 TB (12 months)',
  'Operating System Pro (OEM)',
  'Video Converter Ultimate',
  'Racing Legends: Deluxe Edition',
  'Space Colony Builder',
  'VPN Unlimited (24 months)',
  'PDF Studio Business',
  'Password Manager Family (5 users)',
  'Mystery Island Adventure',
  'Accounting Suite Small Business',
  'Language Tutor Premium (6 months)',
  'Strategy Empires: Gold Edition',
];

// Weighted: most orders are completed; the rest exercise the "keys not ready" paths.
const STATUSES: Array<[string, number]> = [
  ['COMPLETED', 0.86],
  ['PROCESSING', 0.06],
  ['PENDING', 0.03],
  ['CANCELED', 0.03],
  ['REFUNDED', 0.02],
];

export const DEFAULT_ANCHOR = '2026-11-20T09:00:00.000Z';

export interface GenerateOptions {
  count: number;
  seed: number;
  /** created_at of the newest order; older ones go back from here. */
  anchor?: string | undefined;
}

/** Generates `count` orders, newest first, the same for the same seed. */
export function generateOrders({ count, seed, anchor = DEFAULT_ANCHOR }: GenerateOptions): SimOrder[] {
  const random = seededRandom(seed);
  const productIds = PRODUCTS.map(() => randomString(random, HEX, 24));
  const orders: SimOrder[] = [];
  const usedIds = new Set<string>();
  let time = Date.parse(anchor);
  for (let index = 0; index < count; index++) {
    let id = randomString(random, ID_ALPHABET, 10);
    while (usedIds.has(id)) id = randomString(random, ID_ALPHABET, 10);
    usedIds.add(id);
    const productIndex = Math.floor(random() * PRODUCTS.length);
    const quantity = random() < 0.06 ? 10 + Math.floor(random() * 41) : 1 + Math.floor(random() * 5);
    const unitPrice = Math.round((4 + random() * 180) * 100) / 100;
    const typeRoll = random();
    const keyTypes = typeRoll < 0.03 ? ['url'] : typeRoll < 0.045 ? ['text', 'image'] : ['text'];
    orders.push({
      id,
      // Reference numbers run in sequence, so a prefix like "PO-2026-1" matches several orders.
      reference_id: `PO-2026-${String(count - index).padStart(6, '0')}`,
      status: weightedStatus(random()),
      item: {
        id: productIds[productIndex] as string,
        title: PRODUCTS[productIndex] as string,
        quantity,
        amount: Math.round(unitPrice * quantity * 100) / 100,
      },
      created_at: new Date(time).toISOString(),
      keyTypes,
    });
    time -= 60_000 + Math.floor(random() * 6 * 3_600_000);
  }
  return orders;
}

function weightedStatus(roll: number): string {
  let total = 0;
  for (const [status, weight] of STATUSES) {
    total += weight;
    if (roll < total) return status;
  }
  return 'COMPLETED';
}

/** Keys are derived from the order, never stored: a 100,000-order account costs no key memory. */
export function keysFor(order: SimOrder, seed: number): SimKey[] {
  const random = seededRandom(hashSeed(seed, order.id));
  const keys: SimKey[] = [];
  for (let index = 0; index < order.item.quantity; index++) {
    const type = order.keyTypes[index % order.keyTypes.length] ?? 'text';
    keys.push({ type, value: keyValue(type, random) });
  }
  return keys;
}

function keyValue(type: string, random: () => number): string {
  const code = Array.from({ length: 5 }, () => randomString(random, KEY_ALPHABET, 5)).join('-');
  if (type === 'url') return `https://redeem.example.com/r/${code.toLowerCase().replaceAll('-', '')}`;
  if (type === 'image') return `data:image/png;base64,iVBORw0KGgo${randomString(random, KEY_ALPHABET, 32)}`;
  return code;
}

export function newOrderId(random: () => number): string {
  return randomString(random, ID_ALPHABET, 10);
}
