import type { SharedLink } from './model.js';

// Which links in a person's message Slack tells an app about (link_shared): those whose host is one
// of the app's unfurl domains or below one (links.example.com under example.com). Message text holds
// links as Slack writes them, `<https://…>` or `<https://…|label>`; bare addresses are read too, as the
// Slack client turns them into links when the message is sent.

const LINK = /<(https?:\/\/[^|>\s]+)(?:\|[^>]*)?>|(?<![<|\w])(https?:\/\/[^\s<>|]+)/g;

/** The links of `text` on `domains`, each URL once, in the order they appear. */
export function sharedLinks(text: string, domains: readonly string[]): SharedLink[] {
  const urls = new Set([...text.matchAll(LINK)].map((match) => (match[1] ?? match[2]) as string));
  const found: SharedLink[] = [];
  for (const url of urls) {
    let host: string;
    try {
      host = new URL(url.replace(/&amp;/g, '&')).hostname.toLowerCase();
    } catch {
      continue;
    }
    const domain = domains.find((d) => host === d.toLowerCase() || host.endsWith(`.${d.toLowerCase()}`));
    if (domain) found.push({ domain, url });
  }
  return found;
}
