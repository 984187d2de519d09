import { hkdfSync } from 'node:crypto';

// Signing keys an attacker could make without the app's own: from each placeholder of `.env.example`
// and the docs, and from each Slack credential (which earlier builds derived the reveal links' key
// from). The reveal page must refuse a link signed with any of them.
export const PLACEHOLDER_SECRETS = ['your-signing-secret', 'xoxb-your-bot-token', 'xapp-your-app-token'];

export function guessableLinkKeys(credentials: readonly string[]): Array<{ from: string; key: Buffer }> {
  return [...PLACEHOLDER_SECRETS, ...credentials].flatMap((secret) => [
    { from: `${secret} as it is`, key: Buffer.from(secret, 'utf8') },
    {
      from: `HKDF of ${secret}`,
      key: Buffer.from(hkdfSync('sha256', secret, 'order-desk', 'key-reveal-links v1', 32)),
    },
  ]);
}
