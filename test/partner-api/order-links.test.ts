import { describe, expect, it } from 'vitest';
import { createOrderLinks } from '../../src/partner-api/order-links.js';

const links = createOrderLinks('https://partner.example.com/orders/{id}');
const withSuffix = createOrderLinks('https://partner.example.com/o/{id}/summary?tab=keys');

describe('order links (ORDER_LINK_TEMPLATE)', () => {
  it('are off without a template', () => {
    expect(createOrderLinks(undefined)).toBeUndefined();
  });

  it('put the order ID, URL-encoded, in place of {id}', () => {
    expect(links?.linkFor('5f2a9c0d1e')).toBe('https://partner.example.com/orders/5f2a9c0d1e');
    // An ID the API might one day send with other characters cannot add a path segment or a query.
    expect(links?.linkFor('a b/../c?d#e')).toBe('https://partner.example.com/orders/a%20b%2F..%2Fc%3Fd%23e');
    expect(withSuffix?.linkFor('PO-1')).toBe('https://partner.example.com/o/PO-1/summary?tab=keys');
  });

  it.each([
    ['https://partner.example.com/orders/5f2a9c0d1e', '5f2a9c0d1e'],
    ['https://partner.example.com/orders/PO-2026_000001', 'PO-2026_000001'],
    ['https://partner.example.com/orders/PO%2D1', 'PO-1'],
  ])('read the order ID back out of %s', (url, id) => {
    expect(links?.orderIdIn(url)).toBe(id);
  });

  it('read it back with a suffix, written with &amp; as Slack writes links in message text', () => {
    expect(withSuffix?.orderIdIn('https://partner.example.com/o/PO-1/summary?tab=keys')).toBe('PO-1');
    const twoParams = createOrderLinks('https://partner.example.com/o?id={id}&view=full');
    expect(twoParams?.orderIdIn('https://partner.example.com/o?id=PO-1&amp;view=full')).toBe('PO-1');
  });

  it.each([
    ['another page of the same domain', 'https://partner.example.com/help'],
    ['the list itself', 'https://partner.example.com/orders/'],
    ['a page below an order', 'https://partner.example.com/orders/PO-1/invoice'],
    ['a query added', 'https://partner.example.com/orders/PO-1?utm=x'],
    ['a trailing slash', 'https://partner.example.com/orders/PO-1/'],
    ['another host', 'https://evil.example.com/orders/PO-1'],
    ['http instead of https', 'http://partner.example.com/orders/PO-1'],
    ['a path escape', 'https://partner.example.com/orders/..%2Fadmin'],
    ['a broken escape', 'https://partner.example.com/orders/PO%E0%A4%A'],
    ['an ID too long to be one', `https://partner.example.com/orders/${'A'.repeat(65)}`],
  ])('ignore %s', (_name, url) => {
    expect(links?.orderIdIn(url)).toBeUndefined();
  });

  it('ignore a link that is the suffix only', () => {
    expect(withSuffix?.orderIdIn('https://partner.example.com/o//summary?tab=keys')).toBeUndefined();
  });
});
