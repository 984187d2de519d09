import { keyImageBase64, type SimImageFormat } from './images.js';
import { hashSeed, randomString, seededRandom } from './random.js';
import { defaultRealism, keyTypeName, type Realism, type SimKeyKind } from './realism.js';

// The simulator's own model of the partner account. It deliberately shares nothing with the client's
// schemas: it is a second reading of the spec, so a misreading cannot hide on both sides of a test.

export interface SimOrder {
  id: string;
  reference_id: string;
  status: string;
  item: { id: string; title: string; quantity: number; amount: number };
  created_at: string;
  /** For pre-orders: when the keys are released (an extra field, as some APIs send). */
  release_date?: string | undefined;
  /**
   * Kinds of key to deliver, cycled over the keys: text, url, image-png, image-jpeg, image-gif (plain
   * "image" is a PNG). How their type is spelled depends on the simulator's key-type style.
   */
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
  ['PROCESSING', 0.05],
  ['PENDING', 0.02],
  ['PRE_ORDER', 0.02],
  ['CANCELED', 0.03],
  ['REFUNDED', 0.02],
];

const IMAGE_FORMATS: SimImageFormat[] = ['png', 'jpeg', 'gif'];

export interface GenerateOptions {
  count: number;
  seed: number;
  /**
   * created_at of the newest order; older ones go back from here. The simulator passes its clock's
   * start-up time unless told otherwise, so the history is recent on any day.
   */
  anchor: string;
  /** Largest gap between two orders (default 6 h); a smaller one packs a large history into a year. */
  maxGapMs?: number | undefined;
}

/** Generates `count` orders, newest first, the same for the same seed. */
export function generateOrders({
  count,
  seed,
  anchor,
  maxGapMs = 6 * 3_600_000,
}: GenerateOptions): SimOrder[] {
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
    // The image format comes from the ID's hash, not from `random`: the rest of the account stays as it was.
    const imageFormat = IMAGE_FORMATS[hashSeed(seed, id) % IMAGE_FORMATS.length] as SimImageFormat;
    const keyTypes =
      typeRoll < 0.03 ? ['url'] : typeRoll < 0.045 ? ['text', `image-${imageFormat}`] : ['text'];
    const status = weightedStatus(random());
    orders.push({
      id,
      // Reference numbers run in sequence, so a prefix like "PO-2026-1" matches several orders.
      reference_id: `PO-2026-${String(count - index).padStart(6, '0')}`,
      status,
      item: {
        id: productIds[productIndex] as string,
        title: PRODUCTS[productIndex] as string,
        quantity,
        amount: Math.round(unitPrice * quantity * 100) / 100,
      },
      created_at: new Date(time).toISOString(),
      ...(status === 'PRE_ORDER' ? { release_date: new Date(time + 21 * 86_400_000).toISOString() } : {}),
      keyTypes,
    });
    time -= 60_000 + Math.floor(random() * maxGapMs);
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

/** The kind of a key as the simulator models it; "image" alone is a PNG. */
export function keyKindOf(name: string): SimKeyKind {
  if (name === 'image') return 'image-png';
  if (['text', 'url', 'image-png', 'image-jpeg', 'image-gif', 'pre-order'].includes(name))
    return name as SimKeyKind;
  return 'text';
}

/**
 * The keys of an order, derived from it and never stored: a 100,000-order account costs no key
 * memory. `count` limits them (partial delivery); the type names follow the realism's style.
 */
export function keysFor(
  order: SimOrder,
  seed: number,
  realism: Pick<Realism, 'keyTypes' | 'imageEncoding'> = defaultRealism,
  count: number = order.item.quantity,
): SimKey[] {
  const random = seededRandom(hashSeed(seed, order.id));
  const keys: SimKey[] = [];
  for (let index = 0; index < Math.min(count, order.item.quantity); index++) {
    const kind = keyKindOf(order.keyTypes[index % order.keyTypes.length] ?? 'text');
    keys.push({
      type: keyTypeName(kind, realism.keyTypes),
      value: keyValue(kind, random, realism.imageEncoding),
    });
  }
  return keys;
}

function keyValue(kind: SimKeyKind, random: () => number, encoding: Realism['imageEncoding']): string {
  const code = Array.from({ length: 5 }, () => randomString(random, KEY_ALPHABET, 5)).join('-');
  if (kind === 'url') return `https://redeem.example.com/r/${code.toLowerCase().replaceAll('-', '')}`;
  if (kind.startsWith('image-')) {
    const format = kind.slice('image-'.length) as SimImageFormat;
    const base64 = keyImageBase64(code, format);
    return encoding === 'data-uri' ? `data:image/${format};base64,${base64}` : base64;
  }
  return code;
}

/** The code an image key shows (its picture is drawn from it), for tests that check the picture. */
export function imageKeyCodes(order: SimOrder, seed: number): string[] {
  const random = seededRandom(hashSeed(seed, order.id));
  const codes: string[] = [];
  for (let index = 0; index < order.item.quantity; index++) {
    const code = Array.from({ length: 5 }, () => randomString(random, KEY_ALPHABET, 5)).join('-');
    codes.push(code);
  }
  return codes;
}

export function newOrderId(random: () => number): string {
  return randomString(random, ID_ALPHABET, 10);
}

/** The account's products with their IDs: the same as the generated history's for the same seed. */
export function productCatalog(seed: number): Array<{ id: string; title: string }> {
  // generateOrders draws the product IDs first from the same seeded stream.
  const random = seededRandom(seed);
  return PRODUCTS.map((title) => ({ id: randomString(random, HEX, 24), title }));
}

export interface ArrivalSpec {
  id: string;
  reference_id: string;
  status: string;
  created_at: string;
  title?: string | undefined;
  quantity?: number | undefined;
  amount?: number | undefined;
  keyTypes?: string[] | undefined;
}

/**
 * A new order as the history's arrivals make it: one of the account's products (its real item ID),
 * a quantity and an amount drawn from `random`, like the generated history's.
 */
export function arrivalOrder(
  catalog: ReadonlyArray<{ id: string; title: string }>,
  random: () => number,
  spec: ArrivalSpec,
): SimOrder {
  const drawn = catalog[Math.floor(random() * catalog.length)] ?? { id: '0'.repeat(24), title: 'Product' };
  const product = spec.title ? (catalog.find((p) => p.title === spec.title) ?? drawn) : drawn;
  const quantity = spec.quantity ?? 1 + Math.floor(random() * 5);
  const unitPrice = Math.round((4 + random() * 180) * 100) / 100;
  return {
    id: spec.id,
    reference_id: spec.reference_id,
    status: spec.status,
    item: {
      id: product.id,
      title: spec.title ?? product.title,
      quantity,
      amount: spec.amount ?? Math.round(unitPrice * quantity * 100) / 100,
    },
    created_at: spec.created_at,
    keyTypes: spec.keyTypes ?? ['text'],
  };
}
