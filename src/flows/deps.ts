import type { AuditLog } from '../access/audit.js';
import type { AuditStore } from '../access/audit-store.js';
import type { Authorizer } from '../access/authorization.js';
import type { ChannelSharing } from '../access/channel-sharing.js';
import type { KeyRetrievalLimit } from '../access/key-limit.js';
import type { BalanceService } from '../finance/balance.js';
import type { ExportClaims } from '../finance/export-claims.js';
import type { SpendService } from '../finance/spend-service.js';
import type { InflightTracker } from '../jobs/inflight.js';
import type { AppLogger } from '../logger.js';
import type { NotificationStore } from '../notifications/notification-store.js';
import type { AppMetrics } from '../observability/metrics.js';
import type { OrderCopy } from '../orders/order-copy.js';
import type { OrderSync } from '../orders/order-sync.js';
import type { OutboxStore } from '../outbox/index.js';
import type { PartnerClient } from '../partner-api/index.js';
import type { OrderLinks } from '../partner-api/order-links.js';
import type { RevealLinks } from '../reveal/links.js';
import type { EventDedup } from '../slack/event-dedup.js';
import type { RichBlocks } from '../slack/rich-blocks.js';
import type { SlackDelivery } from '../slack/slack-delivery.js';
import type { OrderExamples } from './order-examples.js';

/** Everything a listener needs, passed in: tests build the app with real parts and no module mocks. */
export interface AppDeps {
  partner: PartnerClient;
  auth: Authorizer;
  balance: BalanceService;
  /** One export per user at a time, across replicas. */
  exportClaims: ExportClaims;
  /** The audit trail in the database (`/order-audit`). */
  auditStore: AuditStore;
  /** AUDIT_RETENTION_DAYS: how long audit lines are kept. */
  auditRetentionDays: number;
  /** The order copy: every order seen, searchable, kept in the database. */
  orderCopy: OrderCopy;
  orderSync: OrderSync;
  /** The newest known order, quoted in "e.g. `/order …`" hints so that examples find something. */
  orderExamples: OrderExamples;
  /** Watches ("Notify me") and channel subscriptions (in the database). */
  notifications: NotificationStore;
  /** tuning.notifyMeMaxWatches: running watches one person may have. */
  maxWatchesPerUser: number;
  /** Every post that must arrive once, in the database (the outbox's delivery job posts them). */
  outbox: OutboxStore;
  /** Slack event redeliveries handled once across replicas. */
  eventDedup: EventDedup;
  /** Tables and charts where Slack takes them, else the classic blocks (for a day after a refusal). */
  richBlocks: RichBlocks;
  /** Posts that must arrive, retried while Slack limits or fails. */
  delivery: SlackDelivery;
  channelSharing: ChannelSharing;
  /** ALLOW_EXTERNAL_SHARING: order data may go to channels shared with other organisations. */
  allowExternalSharing: boolean;
  /** ORDER_LINK_TEMPLATE: the partner platform's page of an order (card buttons, unfurls); unset: none. */
  orderLinks: OrderLinks | undefined;
  /** tuning.workObjectPanelDeadlineMs: how long the Work Object panel waits for the partner. */
  panelDeadlineMs: number;
  keyLimit: KeyRetrievalLimit;
  /** Spend and runway from the order history, cached on the shared state. */
  spend: SpendService;
  /** How old spend figures may be before a Home open recomputes them (the watch's interval). */
  financeRefreshMs: number;
  /** REPORT_TIMEZONE: the calendar days of spend figures and exports. */
  reportTimeZone: string;
  revealLinks: RevealLinks;
  metrics: AppMetrics;
  audit: AuditLog;
  logger: AppLogger;
  tracker: InflightTracker;
  currency: string | undefined;
  now: () => Date;
}
