// When a balance reading becomes a message to finance. Pure: the watch keeps the state (balance-watch.ts).

export type Watched = 'funds' | 'runway';

export interface WatchedState {
  /** Below the threshold, and finance was told. */
  active: boolean;
  /** The value last alerted about: a new alert comes only when it gets worse by a step. */
  lastAlerted: number | null;
}

export interface AlertState {
  funds: WatchedState;
  runway: WatchedState;
  failures: number;
  unreadableAnnounced: boolean;
}

export const initialAlertState: AlertState = {
  funds: { active: false, lastAlerted: null },
  runway: { active: false, lastAlerted: null },
  failures: 0,
  unreadableAnnounced: false,
};

export interface AlertEvent {
  watched: Watched;
  type: 'crossed' | 'worse' | 'recovered';
  value: number | null;
  threshold: number;
}

/** Back above the threshold by this fraction before "recovered": no flapping around the line. */
export const RECOVERY_MARGIN = 0.1;

/**
 * Once per crossing; again when the value falls a further half-threshold below the last alert; recovered
 * above the threshold plus the margin. A null value (runway with no spend) is nothing to worry about.
 */
export function evaluateWatched(
  previous: WatchedState,
  watched: Watched,
  value: number | null,
  threshold: number | undefined,
): { next: WatchedState; event?: AlertEvent } {
  if (threshold === undefined) return { next: previous };
  const below = value !== null && value < threshold;
  const alert = (type: AlertEvent['type'], next: WatchedState) => ({
    next,
    event: { watched, type, value, threshold },
  });
  if (!previous.active)
    return below ? alert('crossed', { active: true, lastAlerted: value }) : { next: previous };
  if (below && previous.lastAlerted !== null && value <= previous.lastAlerted - threshold / 2)
    return alert('worse', { active: true, lastAlerted: value });
  if (value === null || value >= threshold * (1 + RECOVERY_MARGIN))
    return alert('recovered', { active: false, lastAlerted: null });
  return { next: previous };
}

export const UNREADABLE_AFTER = 3;

/** Three failed readings in a row are news for finance (once), a success after that too. */
export function evaluateReading(
  previous: AlertState,
  succeeded: boolean,
): { next: AlertState; announce?: 'unreadable' | 'readable_again' } {
  if (!succeeded) {
    const failures = previous.failures + 1;
    if (failures >= UNREADABLE_AFTER && !previous.unreadableAnnounced)
      return { next: { ...previous, failures, unreadableAnnounced: true }, announce: 'unreadable' };
    return { next: { ...previous, failures } };
  }
  if (previous.unreadableAnnounced)
    return { next: { ...previous, failures: 0, unreadableAnnounced: false }, announce: 'readable_again' };
  return { next: { ...previous, failures: 0 } };
}
