import type { DigitalKey, OrderKeys } from '../partner-api/index.js';
import { ActionIds } from './action-ids.js';
import { deliveryWarnings } from './delivery-warnings.js';
import { escapeCut, escapeMrkdwn, plural, SHOWN } from './format.js';
import { classifyKey } from './key-classification.js';
import { actions, adminNote, button, context, message, section } from './primitives.js';
import type { Block, SlackMessage } from './types.js';

// Packs an order's keys, by product, into as few blocks as Slack's limits allow: 3,000 characters a
// section, 50 blocks a message, 5 posts to one response_url. What does not fit is counted and said.
const SECTION_LIMIT = 3_000;
const BLOCKS_PER_MESSAGE = 50;
const FRAME_BLOCKS = 6; // intro, up to two warnings, closing context, "not shown" note, actions
const MAX_KEY_MESSAGES = 5;

// Slack shows images only from a public URL or an uploaded file (which would stay in Slack's storage),
// so an image key opens through a one-time link to Order Desk itself, which needs PUBLIC_URL.
const IMAGE_NEEDS_PUBLIC_URL =
  'Image keys open through a one-time link, which is not set up: ask your Order Desk admin (or retrieve the key from the partner platform).';
const PUBLIC_URL_HINT =
  'one-time links to image keys need `PUBLIC_URL`, the address where Order Desk can be reached.';

/** Gives the one-time link for the key at (product, key) of the answer; undefined without PUBLIC_URL. */
export type RevealLinkFor = (product: number, key: number) => string | undefined;

type Piece = { block: Block; keys: number };

/** Groups consecutive keys of one kind into as few blocks as the section limit allows. */
function piecesForKeys(
  keys: readonly DigitalKey[],
  revealLink: (key: number) => string | undefined,
  seen: { imageWithoutLink: boolean },
): Piece[] {
  const pieces: Piece[] = [];
  // A run of keys shown alike: their lines in one block, written when the run ends or the block is full.
  const run = (limit: number, toBlock: (text: string) => Block) => {
    let lines: string[] = [];
    const flush = () => {
      if (lines.length) pieces.push({ block: toBlock(lines.join('\n')), keys: lines.length });
      lines = [];
    };
    const add = (line: string) => {
      if (lines.join('\n').length + line.length + 1 > limit) flush();
      lines.push(line);
    };
    return { add, flush };
  };
  // The code block's backticks and its last line's end count towards the section's limit.
  const code = run(SECTION_LIMIT - 7, (text) => section(`\`\`\`${text}\`\`\``));
  const links = run(SECTION_LIMIT, (text) => section(text));
  const notes = run(2_000, (text) => context(text));
  keys.forEach((key, index) => {
    const piece = classifyKey(key);
    const link = piece.kind === 'image' ? revealLink(index) : undefined;
    if (piece.kind !== 'code') code.flush();
    if (piece.kind !== 'link') links.flush();
    if ((piece.kind !== 'note' && piece.kind !== 'image') || link) notes.flush();
    if (piece.kind === 'code') {
      // Slack unescapes &amp; &lt; &gt; inside code blocks too, so the key reads exactly as delivered.
      code.add(escapeMrkdwn(piece.text));
    } else if (piece.kind === 'link') {
      links.add(`<${escapeMrkdwn(piece.url)}>`);
    } else if (piece.kind === 'note') {
      notes.add(piece.text);
    } else if (piece.kind === 'image' && !link) {
      seen.imageWithoutLink = true;
      notes.add(`${piece.text} ${IMAGE_NEEDS_PUBLIC_URL}`);
    } else if (piece.kind === 'image') {
      // The link's token is in the URL's fragment: it reaches no server until the agent clicks Reveal.
      pieces.push({
        block: section(`${piece.text} It opens once, for you, for a few minutes.`, {
          type: 'button',
          action_id: `${ActionIds.viewImageKey}_${index}_${pieces.length}`,
          text: { type: 'plain_text', text: 'View image key', emoji: false },
          url: link,
        }),
        keys: 1,
      });
    } else {
      pieces.push({
        block: { type: 'section', text: { type: 'plain_text', text: piece.text, emoji: false } },
        keys: 1,
      });
    }
  });
  code.flush();
  links.flush();
  notes.flush();
  return pieces;
}

export type KeyMessages = { messages: SlackMessage[]; totalKeys: number; shownKeys: number };

/** The keys of an order by product, in up to five ephemeral messages; their text says how many keys only. */
export function renderKeyMessages(
  order: OrderKeys,
  revealLink: RevealLinkFor = () => undefined,
  /** The order's reference, when known: the header names it, so a reference typed is seen to match. */
  reference?: string | null,
): KeyMessages {
  const pieces: Piece[] = [];
  const seen = { imageWithoutLink: false };
  let totalKeys = 0;
  for (const [productIndex, product] of order.products.entries()) {
    totalKeys += product.keys.length;
    const quantity = product.quantity === null ? '' : ` · quantity ${product.quantity}`;
    const delivered = product.keys.length;
    const count =
      product.quantity !== null && product.quantity > delivered
        ? `${delivered} of ${plural(product.quantity, 'key')} delivered`
        : delivered === 1
          ? '1 key'
          : `${delivered} keys`;
    pieces.push({
      block: section(`*${escapeCut(product.title ?? 'Untitled product', 2_000)}*${quantity} · ${count}`),
      keys: 0,
    });
    if (product.keys.length === 0)
      pieces.push({ block: context('No keys were delivered for this product.'), keys: 0 });
    pieces.push(...piecesForKeys(product.keys, (key) => revealLink(productIndex, key), seen));
  }
  if (order.products.length === 0)
    pieces.push({ block: section('The partner API returned no products for this order.'), keys: 0 });
  // An image key without a link: the admin's setting once, in small print, after the keys.
  if (seen.imageWithoutLink) pieces.push({ block: adminNote(PUBLIC_URL_HINT), keys: 0 });

  const perMessage = BLOCKS_PER_MESSAGE - FRAME_BLOCKS;
  const groups: Piece[][] = [];
  for (let i = 0; i < pieces.length; i += perMessage) groups.push(pieces.slice(i, i + perMessage));
  const shownGroups = groups.slice(0, MAX_KEY_MESSAGES);
  const shownKeys = shownGroups.flat().reduce((sum, piece) => sum + piece.keys, 0);
  const notShown = totalKeys - shownKeys;
  const keyWord = totalKeys === 1 ? 'key' : 'keys';

  const warnings = deliveryWarnings(order);
  const named = reference
    ? ` (reference \`${escapeCut(reference.replace(/`/g, 'ˋ'), SHOWN.reference)}\`)`
    : '';
  const messages = shownGroups.map((group, index) => {
    const part = shownGroups.length > 1 ? ` (part ${index + 1} of ${shownGroups.length})` : '';
    const blocks: Block[] = [
      section(
        `:key: *Keys for order \`${escapeMrkdwn(order.orderId)}\`*${named}${part} · ${totalKeys} ${keyWord}`,
      ),
      // Every part repeats the warnings: an agent may read only the part with the key they need.
      ...warnings,
      ...group.map((piece) => piece.block),
    ];
    if (index === shownGroups.length - 1 && notShown > 0)
      blocks.push(
        section(
          `:warning: *${notShown} of ${plural(totalKeys, 'key')} ${notShown === 1 ? 'is' : 'are'} not shown.* Slack allows only ${MAX_KEY_MESSAGES} replies to one command, and they are full. Retrieve the rest from the partner platform.`,
        ),
      );
    blocks.push(
      context('Only visible to you. Order Desk never posts keys in channels and does not store them.'),
      actions('keys_actions', [button(ActionIds.hideKeys, 'Hide keys', 'hide')]),
    );
    return message(`Keys for order ${order.orderId}: ${totalKeys} ${keyWord}${part}`, blocks);
  });
  return { messages, totalKeys, shownKeys };
}
