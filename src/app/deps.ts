import type { WebClient } from '@slack/web-api';
import type { SpendService } from '../finance/spend-service.js';
import type { AppLogger } from '../logger.js';
import type { PartnerClient } from '../partner-api/index.js';
import type { RevealLinks } from '../reveal/links.js';
import type { AuditLog } from '../services/audit.js';
import type { Authorizer } from '../services/authorization.js';
import type { BalanceService } from '../services/balance.js';
import type { ChannelSharing } from '../services/channel-sharing.js';
import type { KeyRetrievalLimit } from '../services/key-limit.js';
import type { SearchWatch } from '../services/search-watch.js';
import type { SharedState } from '../state/index.js';
import type { InflightTracker } from './inflight.js';
import type { AppMetrics } from './metrics.js';

/** Everything a listener needs, passed in: tests build the app with real parts and no module mocks. */
export interface AppDeps {
  partner: PartnerClient;
  auth: Authorizer;
  balance: BalanceService;
  searchWatch: SearchWatch;
  /** Shared across replicas: Redis when REDIS_URL is set, this process's memory otherwise. */
  state: SharedState;
  channelSharing: ChannelSharing;
  keyLimit: KeyRetrievalLimit;
  /** Spend and runway from the order history, cached on the shared state. */
  spend: SpendService;
  /** How old spend figures may be before a Home open recomputes them (the watch's interval). */
  financeRefreshMs: number;
  /** REPORT_TIMEZONE: the calendar days of spend figures and exports. */
  reportTimeZone: string;
  revealLinks: RevealLinks;
  /** Signs and checks one-time reveal tokens (the same on every replica). */
  revealKey: Buffer;
  metrics: AppMetrics;
  audit: AuditLog;
  logger: AppLogger;
  tracker: InflightTracker;
  /** The bot's Web API client, for calls outside a listener's own `client` (none carry keys). */
  slack: WebClient;
  currency: string | undefined;
  now: () => Date;
}
