/**
 * Slack escapes `&`, `<` and `>` in message text (and in the links it sends): this reads them back.
 * `&amp;` last, so that an escaped escape ("&amp;lt;") comes back as the text "&lt;".
 */
export function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
