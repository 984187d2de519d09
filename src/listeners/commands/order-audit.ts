import type { SlackCommandMiddlewareArgs } from '@slack/bolt';
import {
  AUDIT_USAGE,
  renderAccessDenied,
  renderAuditTrail,
  renderNotice,
  type SlackMessage,
} from '../../blocks/index.js';
import type { AppDeps } from '../../flows/deps.js';
import { reply } from '../../flows/respond.js';
import { isValidOrderId } from '../../partner-api/index.js';
import type { ListenerDeps } from '../frame.js';

// The newest lines shown; the answer says how many older ones there are.
const LINES_SHOWN = 100;

export type AuditTrailDeps = Pick<AppDeps, 'auditRetentionDays' | 'auditStore' | 'currency' | 'now'>;

/** `/order-audit <order ID>`: who retrieved that order's keys and when; for AUDIT_VIEWERS_* (fail closed). */
export function orderAuditCommand(deps: AuditTrailDeps & ListenerDeps) {
  return async ({ command, respond }: SlackCommandMiddlewareArgs) => {
    await reply(respond, await auditAnswer(deps, command), 'new_ephemeral', deps);
  };
}

async function auditAnswer(
  deps: AuditTrailDeps & ListenerDeps,
  command: SlackCommandMiddlewareArgs['command'],
): Promise<SlackMessage> {
  const access = await deps.auth.canViewAudit(command.user_id);
  if (!access.allowed) return renderAccessDenied('audit', access.reason);
  const orderId = (command.text ?? '').trim();
  if (!orderId) return renderNotice(`*Which order?* ${AUDIT_USAGE}`);
  if (!isValidOrderId(orderId))
    return renderNotice(
      'That is not a valid order ID: order IDs use only letters, digits, `-` and `_` (1 to 64 characters). Use `/order` to find an order ID.',
    );
  let trail: Awaited<ReturnType<AppDeps['auditStore']['forOrder']>>;
  try {
    trail = await deps.auditStore.forOrder(orderId, LINES_SHOWN);
  } catch (error) {
    deps.logger.error(
      { where: '/order-audit', error: (error as Error).message },
      'the audit trail could not be read',
    );
    return renderNotice(
      ':warning: *The audit trail cannot be read right now:* Order Desk cannot reach its database. Try again in a few minutes; the audit channel still has every line.',
    );
  }
  return renderAuditTrail(
    { orderId, lines: trail.lines, total: trail.total, retentionDays: deps.auditRetentionDays },
    { currency: deps.currency, now: deps.now() },
  );
}
