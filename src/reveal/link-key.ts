import { randomBytes } from 'node:crypto';
import type { OrderDeskDb } from '../db/index.js';

// The key that signs reveal links: KEY_LINK_SECRET, or 32 random bytes kept in the database (shared by
// replicas, kept across restarts). Never derived from another credential (a Slack secret left at its
// placeholder would let anyone mint links); never logged.

export interface LinkSigningKey {
  /** The key; the first call reads it from the database (making it if no replica has yet). */
  get(): Promise<Buffer>;
}

const SECRET_NAME = 'key-link-signing-key';

export function createLinkSigningKey(options: {
  configured: string | undefined;
  db: Pick<OrderDeskDb, 'run'>;
  now: () => Date;
}): LinkSigningKey {
  const { configured, db, now } = options;
  if (configured) {
    const key = Buffer.from(configured, 'utf8');
    return { get: async () => key };
  }
  let loading: Promise<Buffer> | undefined;
  const load = async () => {
    const made = randomBytes(32).toString('base64url');
    // Replicas starting together may both make one: the first insert wins, and all read the winner.
    await db.run((kysely) =>
      kysely
        .insertInto('app_secrets')
        .values({ name: SECRET_NAME, value: made, created_at: now().toISOString() })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .execute(),
    );
    const row = await db.run((kysely) =>
      kysely
        .selectFrom('app_secrets')
        .select('value')
        .where('name', '=', SECRET_NAME)
        .executeTakeFirstOrThrow(),
    );
    return Buffer.from(row.value, 'base64url');
  };
  return {
    get() {
      // A failed read is not kept: the next link tries again.
      loading ??= load().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return loading;
    },
  };
}
