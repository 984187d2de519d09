import type { AuditLog, KeysOutcome } from '../access/audit.js';
import type { Authorizer } from '../access/authorization.js';
import type { KeyRetrievalLimit } from '../access/key-limit.js';
import type { AppLogger } from '../logger.js';
import {
  type DecodedImage,
  decodeImageKey,
  isPartnerApiError,
  type PartnerClient,
} from '../partner-api/index.js';
import type { SharedState } from '../state/index.js';
import type { LinkSigningKey } from './link-key.js';
import { type RevealClaims, type TokenCheck, verifyRevealToken } from './token.js';

export type RevealOutcome =
  | { ok: true; image: DecodedImage; orderId: string }
  | {
      ok: false;
      status: number;
      error: RevealError;
      title: string;
      message: string;
      traceId?: string | undefined;
    };

export type RevealError =
  | 'tampered'
  | 'expired'
  | 'used'
  | 'not_allowed'
  | 'rate_limited'
  | 'unavailable'
  | 'partner'
  | 'gone';

export interface RevealDeps {
  linkSigningKey: LinkSigningKey;
  auth: Pick<Authorizer, 'canSeeKeys'>;
  state: SharedState;
  keyLimit: KeyRetrievalLimit;
  partner: Pick<PartnerClient, 'onBehalfOf'>;
  audit: Pick<AuditLog, 'keysRequest'>;
  /** Called for a token that is not ours (malformed or tampered): logged, never audited to the channel. */
  onForgedToken: () => void;
  logger: AppLogger;
  now: () => Date;
}

export const AGAIN = 'Run /order-keys for the order again in Slack to get a new link.';

type Refusal = Extract<RevealOutcome, { ok: false }>;
/** Makes the link usable again (nothing was shown). */
type GiveBack = () => Promise<unknown>;

function refusal(
  status: number,
  error: RevealError,
  title: string,
  message: string,
  traceId?: string,
): Refusal {
  return { ok: false, status, error, title, message, traceId };
}

/**
 * POST /keys/reveal, everything checked now, in order: the token's signature and expiry; that it was not
 * used (on any replica); that its user may still see keys (asked of Slack now: the link may be older than
 * the cache); the retrieval limit; then the key is fetched again and served once.
 */
export async function redeemRevealToken(deps: RevealDeps, token: unknown): Promise<RevealOutcome> {
  const check = verifyRevealToken(await deps.linkSigningKey.get(), token, deps.now().getTime());
  if (!check.ok) return refuseUnverified(deps, check);
  const { claims } = check;
  // Claimed for the token's life before anything is asked of Slack: a second use (a double click, on
  // any replica) is refused at once. Only this request (its owner token) can give the link back.
  const usedKey = `reveal-used:${claims.id}`;
  const owner = `${process.pid}:${Math.random().toString(36).slice(2)}`;
  const lifeMs = Math.max(1_000, claims.expiresAt * 1000 - deps.now().getTime() + 60_000);
  try {
    if (!(await deps.state.claim(usedKey, lifeMs, owner))) {
      await audit(deps, claims, 'failed:used');
      return refusal(410, 'used', 'This link was already used', `Each link opens its key once. ${AGAIN}`);
    }
  } catch {
    return stateDown(deps, claims);
  }
  const giveLinkBack = () => deps.state.release(usedKey, owner).catch(() => undefined);
  const refused =
    (await refuseWithoutAccess(deps, claims, giveLinkBack)) ??
    (await refuseOverLimit(deps, claims, giveLinkBack));
  return refused ?? revealKey(deps, claims, giveLinkBack);
}

/** A token that is not ours (only logged: it names nobody), or ours but expired (audited). */
async function refuseUnverified(deps: RevealDeps, check: Extract<TokenCheck, { ok: false }>) {
  if (check.reason !== 'expired') {
    deps.onForgedToken();
    return refusal(400, 'tampered', 'This link is not valid', `It is incomplete or was changed. ${AGAIN}`);
  }
  await audit(deps, check.claims, 'failed:expired');
  return refusal(
    410,
    'expired',
    'This link has expired',
    `Links to image keys work for a few minutes. ${AGAIN}`,
  );
}

/** The user may no longer see keys, or Slack cannot say: the link is given back. */
async function refuseWithoutAccess(deps: RevealDeps, claims: RevealClaims, giveLinkBack: GiveBack) {
  const access = await deps.auth.canSeeKeys(claims.userId, { fresh: true });
  if (access.allowed) return undefined;
  await giveLinkBack();
  if (access.reason === 'lookup_failed') {
    // Slack could not say who is in the allowed groups (a limit, an outage): not a refusal of the person.
    await audit(deps, claims, 'failed:access_unavailable');
    return refusal(
      503,
      'unavailable',
      'Your access cannot be checked right now',
      'Slack did not answer who may see keys. This link still works: press Reveal again in a minute.',
    );
  }
  await audit(deps, claims, 'denied');
  return refusal(
    403,
    'not_allowed',
    'You may no longer see keys',
    'The person this link was made for is not allowed to retrieve keys now. Ask your Order Desk admin.',
  );
}

/** Takes one retrieval from the user's limit; over it (or the limit unreadable), the link is given back. */
async function refuseOverLimit(deps: RevealDeps, claims: RevealClaims, giveLinkBack: GiveBack) {
  const limit = await deps.keyLimit.take(claims.userId);
  if (limit.allowed) return undefined;
  await giveLinkBack();
  await audit(deps, claims, limit.reason === 'limit' ? 'rate_limited' : 'failed:limit_unavailable');
  return limit.reason === 'limit'
    ? refusal(
        429,
        'rate_limited',
        'Key retrieval limit reached',
        `You have retrieved keys ${limit.max} ${limit.max === 1 ? 'time' : 'times'} within the hour. Try again in ${minutes(limit.retryAfterMs)}.`,
      )
    : stateDown(deps, claims, false);
}

/** The key fetched from the partner API again and served once, or why it cannot be. */
async function revealKey(
  deps: RevealDeps,
  claims: RevealClaims,
  giveLinkBack: GiveBack,
): Promise<RevealOutcome> {
  let keys: Awaited<ReturnType<PartnerClient['orders']['keys']>>;
  try {
    keys = await deps.partner.onBehalfOf(claims.userId).orders.keys(claims.orderId);
  } catch (error) {
    if (!isPartnerApiError(error)) throw error;
    // Nothing was delivered: the link works again and the retrieval does not count.
    await Promise.all([giveLinkBack(), deps.keyLimit.giveBack(claims.userId)]);
    await deps.audit.keysRequest({
      ...entry(claims),
      outcome: `failed:${error.kind}`,
      keyCount: 0,
      traceId: error.traceId,
      failure: error,
    });
    // Worth pressing again only when the partner may answer next time.
    const transient = ['unavailable', 'timeout', 'rate_limited', 'invalid_response'].includes(error.kind);
    return refusal(
      502,
      'partner',
      'The partner API did not deliver the key',
      `${error.userMessage} ${transient ? 'This link still works: press Reveal again while it is valid.' : AGAIN}`,
      error.traceId,
    );
  }
  const value = keys.products[claims.product]?.keys[claims.key]?.value;
  const image = value ? decodeImageKey(value) : undefined;
  if (!image) {
    await audit(deps, claims, 'failed:gone', keys.traceId);
    return refusal(
      410,
      'gone',
      'This key is no longer in the order',
      `The partner API's answer for this order has changed. ${AGAIN}`,
      keys.traceId,
    );
  }
  await deps.audit.keysRequest({ ...entry(claims), outcome: 'shown', keyCount: 1, traceId: keys.traceId });
  return { ok: true, image, orderId: claims.orderId };
}

function entry(claims: RevealClaims) {
  return { userId: claims.userId, channelId: undefined, orderId: claims.orderId, via: 'reveal' as const };
}

/** Audits a reveal that showed no key. */
async function audit(deps: RevealDeps, claims: RevealClaims, outcome: KeysOutcome, traceId?: string) {
  await deps.audit.keysRequest({ ...entry(claims), outcome, keyCount: 0, traceId });
}

async function stateDown(deps: RevealDeps, claims: RevealClaims, auditIt = true) {
  if (auditIt) await audit(deps, claims, 'failed:state_unavailable');
  return refusal(
    503,
    'unavailable',
    'Key retrieval is paused',
    'Order Desk cannot check this link right now, so the key stays hidden. Try again in a few minutes.',
  );
}

function minutes(ms: number): string {
  const count = Math.max(1, Math.ceil(ms / 60_000));
  return count === 1 ? '1 minute' : `${count} minutes`;
}
