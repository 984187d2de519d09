import type { SimOrder } from './simulator/data.js';
import type { HistoryChange } from './simulator/history.js';
import type { PartnerSimulator } from './simulator/server.js';

// The sandbox page's "Partner history" control: move the simulated partner's history by hand (a new
// order, the oldest pending one completed, the newest completed one refunded), take the partner API
// down or make it slow. Order Desk learns of all of it only by reading the partner, as it would in
// production.

/** How late every partner answer comes while "Partner API slow" is on: past Slack's 3 s, within the app's 10 s timeout. */
export const SLOW_PARTNER_MS = 3_000;

export interface OrderBrief {
  id: string;
  reference_id: string;
  status: string;
  created_at: string;
}

export interface PartnerState {
  /** Every partner request answers 503 while true. */
  down: boolean;
  /** Every partner answer comes `SLOW_PARTNER_MS` late while true. */
  slow: boolean;
  orders: number;
  /** Orders PROCESSING or PENDING. */
  pending: number;
  lastChange: HistoryChange | null;
}

export interface PartnerHistoryControls {
  state(): PartnerState;
  /** A new PROCESSING order at the newest end, created now. */
  newOrder(): OrderBrief;
  /** The oldest pending order that arrived since start (else the oldest in the history), now COMPLETED. */
  completeOldestPending(): { order: OrderBrief; from: string } | undefined;
  /** The newest COMPLETED order, now REFUNDED. */
  refundNewestCompleted(): { order: OrderBrief; from: string } | undefined;
  setDown(down: boolean): void;
  setSlow(slow: boolean): void;
}

export function partnerHistoryControls(simulator: PartnerSimulator): PartnerHistoryControls {
  // What the fault settings were before "down", to put back when it is switched off.
  let saved: { errorRate: number; errorStatus: number } | undefined;
  // The latency before "slow", likewise.
  let savedLatencyMs: number | undefined;
  const brief = (order: SimOrder): OrderBrief => ({
    id: order.id,
    reference_id: order.reference_id,
    status: order.status,
    created_at: order.created_at,
  });
  return {
    state() {
      const orders = simulator.allOrders();
      const changes = simulator.history.changes;
      return {
        down: saved !== undefined,
        slow: savedLatencyMs !== undefined,
        orders: orders.length,
        pending: orders.filter((order) => order.status === 'PROCESSING' || order.status === 'PENDING').length,
        lastChange: changes.at(-1) ?? null,
      };
    },
    newOrder() {
      const [order] = simulator.history.arrive(1, { status: 'PROCESSING' });
      if (!order) throw new Error('no order arrived');
      return brief(order);
    },
    completeOldestPending() {
      const order =
        simulator.history.oldestPending({ arrivedOnly: true }) ?? simulator.history.oldestPending();
      if (!order) return undefined;
      const from = order.status;
      simulator.history.complete(order.id);
      return { order: brief(order), from };
    },
    refundNewestCompleted() {
      const order = simulator.history.newestCompleted();
      if (!order) return undefined;
      simulator.history.refund(order.id);
      return { order: brief(order), from: 'COMPLETED' };
    },
    setDown(down) {
      if (down && !saved) {
        const { errorRate, errorStatus } = simulator.faults.settings;
        saved = { errorRate, errorStatus };
        simulator.faults.set({ errorRate: 1, errorStatus: 503 });
      } else if (!down && saved) {
        simulator.faults.set(saved);
        saved = undefined;
      }
    },
    setSlow(slow) {
      if (slow && savedLatencyMs === undefined) {
        savedLatencyMs = simulator.faults.settings.latencyMs;
        simulator.faults.set({ latencyMs: SLOW_PARTNER_MS });
      } else if (!slow && savedLatencyMs !== undefined) {
        simulator.faults.set({ latencyMs: savedLatencyMs });
        savedLatencyMs = undefined;
      }
    },
  };
}
