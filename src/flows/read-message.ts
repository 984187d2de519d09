import { unescapeSlack } from '../text/slack-escapes.js';
import { orderCandidates } from './orders-in-message.js';

/** What a direct message asks for, read from its words alone: the same text, the same answer. */
export type DirectAsk =
  | { kind: 'help' }
  /** The balance, credit, funds, spend or runway: finance's figures. */
  | { kind: 'balance' }
  | { kind: 'keys'; orderId: string | undefined }
  /** What `/order <text>` answers: one ID or reference found in a sentence, or search words. */
  | { kind: 'orders'; text: string }
  /** Several IDs or references in one message (a customer's, pasted): the shortcut's lookup. */
  | { kind: 'several'; candidates: string[] };

const KEYS = /^(?:keys?|licen[cs]es?|serials?|cd-keys?)$/;
const FINANCE = /^(?:balances?|credit|funds|runway|spend|spending)$/;
/** Words that make a sentence (a question, a greeting, a story): never part of a product's name. */
const SENTENCE = new Set(
  `what whats where wheres when why how who which is are was were isnt arent do does did dont doesnt didnt
  can cant could would will wont should has have had i im ive my we our us you your hi hello hey thanks
  thank help happened yesterday today tomorrow tell know need want still yet not`.split(/\s+/),
);
/** Words around search words that ask for the search ("find orders of …", "… please"). */
const REQUEST = new Set(
  `find search show list look lookup up me all any orders order of for with the a an please pls product
  products named called status`.split(/\s+/),
);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** More words than this is not a product name or a reference: help. */
const MAX_SEARCH_WORDS = 8;
/** A pasted customer message that merely mentions funds or credit is longer than a finance question. */
const MAX_QUESTION_WORDS = 20;

/** A word as the rules compare it: lower case, no punctuation around it, no apostrophes. */
const bare = (token: string) =>
  token
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');

/**
 * Reads a direct message (no model), in this order: keys are never sent here; order IDs and references
 * are looked up; a finance question is finance's; a few words are searched as `/order` searches; anything
 * else gets the help. Slack's escapes are undone for the words, kept for finding IDs in links.
 */
export function readDirectMessage(raw: string): DirectAsk {
  const text = unescapeSlack(raw.replace(/<@[A-Z0-9]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  const tokens = text.split(' ').filter((token) => bare(token) !== '');
  const words = tokens.map(bare);
  if (words.length === 0) return { kind: 'help' };
  const finance = words.some((word) => FINANCE.test(word)) && !/\bcredit cards?\b/i.test(text);
  // A date is not an order ("ordered on 2026-11-30"); in a finance question, neither is a number.
  const named = orderCandidates(raw).filter(
    (word) => !DATE.test(word) && !(finance && /^[\d-]+$/.test(word)),
  );
  if (words.some((word) => KEYS.test(word))) return { kind: 'keys', orderId: named[0] };
  // One word is `/order`'s text exactly as typed ("R&D-2026"), unless it is a word of the rules.
  if (tokens.length === 1 && !text.includes('<')) {
    if (finance) return { kind: 'balance' };
    const word = words[0] as string;
    return SENTENCE.has(word) || REQUEST.has(word)
      ? { kind: 'help' }
      : { kind: 'orders', text: trimEnds(text) };
  }
  if (named.length === 1) return { kind: 'orders', text: named[0] as string };
  if (named.length > 1) return { kind: 'several', candidates: named };
  if (finance && words.length <= MAX_QUESTION_WORDS) return { kind: 'balance' };
  const phrase = searchWords(tokens);
  return phrase ? { kind: 'orders', text: phrase } : { kind: 'help' };
}

/** Quotes and end punctuation around typed text: "“Photo Editor Pro 12”?" is the product's name. */
function trimEnds(text: string): string {
  return text.replace(/^["“”'‘’]+|["“”'‘’?!.,:;]+$/g, '');
}

/** The words to search in "orders of Photo Editor Pro 12, please": none in a sentence. */
function searchWords(tokens: string[]): string | undefined {
  let start = 0;
  let end = tokens.length;
  while (start < end && REQUEST.has(bare(tokens[start] as string))) start++;
  while (end > start && REQUEST.has(bare(tokens[end - 1] as string))) end--;
  const kept = tokens.slice(start, end);
  if (kept.length === 0 || kept.length > MAX_SEARCH_WORDS) return undefined;
  if (kept.some((token) => SENTENCE.has(bare(token)))) return undefined;
  return trimEnds(kept.join(' ')) || undefined;
}
