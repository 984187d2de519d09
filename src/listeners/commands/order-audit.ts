import type { SlackCommandMiddlewareArgs } from '@slack/bolt';
import { AUDIT_USAGE, renderAccessDenied, renderAuditTrail, renderNotice } from '../../blocks/index.js';
import type { AppDeps } from '../../flows/deps.js';
import { reply } from '../../flows/respond.js';
import { isValidOrderId } from '../../partner-api/index.js';
import type { ListenerDeps } from '../frame.js';

// The newest lines shown; the answer says how many older ones there are.
const LINES_SHOWN = 100;

/** What `/order-audit` needs: the audit trail and how long it is kept. */
export type AuditTrailDeps = Pick<AppDeps, 'auditRetentionDays' | 'auditStore' | 'currency' | 'now'>;

/**
 * `/order-audit <order ID>`: who retrieved that order's keys and when, newest first, from the audit
 * trail in the database. Only for AUDIT_VIEWERS_* (fail closed), only to the person who asked.
 */
export function orderAuditCommand(deps: AuditTrailDeps & ListenerDeps) {
  return async ({ command, respond }: SlackCommandMiddlewareArgs) => {
    const answer = (message: Parameters<typeof reply>[1]) => reply(respond, message, 'new_ephemeral', deps);
    const access = await deps.auth.canViewAudit(command.user_id);
    if (!access.allowed) {
      await answer(renderAccessDenied('audit', access.reason));
      return;
    }
    const orderId = (command.text ?? '').trim();
    if (!orderId) {
      await answer(renderNotice(`*Which order?* ${AUDIT_USAGE}`));
      return;
    }
    if (!isValidOrderId(orderId)) {
      await answer(
        renderNotice(
          'That is not a valid order ID: order IDs use only letters, digits, `-` and `_` (1 to 64 characters). Use `/order` to find an order ID.',
        ),
      );
      return;
    }
    let trail: Awaited<ReturnType<AppDeps['auditStore']['forOrder']>>;
    try {
      trail = await deps.auditStore.forOrder(orderId, LINES_SHOWN);
    } catch (error) {
      deps.logger.error(
        { where: '/order-audit', error: (error as Error).message },
        'the audit trail could not be read',
      );
      await answer(
        renderNotice(
          ':warning: *The audit trail cannot be read right now:* Order Desk cannot reach its database. Try again in a few minutes; the audit channel still has every line.',
        ),
      );
      return;
    }
    await answer(
      renderAuditTrail(
        { orderId, lines: trail.lines, total: trail.total, retentionDays: deps.auditRetentionDays },
        { currency: deps.currency, now: deps.now() },
      ),
    );
  };
}
