/** Ways an answer can be broken on purpose, for tests, benchmarks and the sandbox. */
export const malformedKinds = ['html', 'truncated', 'not-json', 'success-false', 'schema', 'empty'] as const;
export type MalformedKind = (typeof malformedKinds)[number];

export interface Fault {
  /** Answer with this status and an error body (in the simulator's error shape). */
  status?: number | undefined;
  /** The error body's code and message, instead of SIMULATED_<status>. */
  code?: string | undefined;
  message?: string | undefined;
  retryAfter?: string | undefined;
  /** For 3xx: where the redirect points. */
  location?: string | undefined;
  /** Answer 200 with a broken body. */
  malformed?: MalformedKind | undefined;
  /** Extra delay for this one answer. */
  delayMs?: number | undefined;
  /** A keys answer that names another order than the one asked for. */
  mismatch?: boolean | undefined;
  /**
   * Send the headers at once, then the body one byte every `dripMs` (a partner that holds the
   * connection open: the client's deadline has to cover the body, not only the headers).
   */
  dripMs?: number | undefined;
  /**
   * Pad the answer (valid JSON, with an extra `padding` field) to at least this many bytes, sent as
   * fast as the client reads, in chunks and without a Content-Length (the client has to stop reading).
   */
  oversizeBytes?: number | undefined;
}

/** SIMULATOR_FAULTS's `drip`: one byte a second, as the partner of issue 25 did. */
export const DEFAULT_DRIP_MS = 1_000;
/** SIMULATOR_FAULTS's `oversized`: above Order Desk's default limit of 16 MiB. */
export const DEFAULT_OVERSIZE_BYTES = 20 * 1024 * 1024;

export interface FaultSettings {
  /** Added to every answer. */
  latencyMs: number;
  /** Fraction (0..1) of answers replaced by `errorStatus`. */
  errorRate: number;
  errorStatus: number;
}

/** Holds the fault plan: steady settings plus a queue of one-off faults for the next requests. */
export class FaultPlan {
  settings: FaultSettings = { latencyMs: 0, errorRate: 0, errorStatus: 503 };
  private queue: Fault[] = [];
  /** One-off faults for reads of one page of the order list (without a search), by page number. */
  private pages = new Map<number, Fault[]>();

  constructor(private readonly random: () => number = Math.random) {}

  set(settings: Partial<FaultSettings>): void {
    this.settings = { ...this.settings, ...settings };
  }

  /** The next `count` requests get `fault`, after any already queued. */
  next(count: number, fault: Fault): void {
    for (let i = 0; i < count; i++) this.queue.push(fault);
  }

  /** The next `count` reads of the order list's page `page` (without a search) get `fault`: a page unreadable N times. */
  onPage(page: number, count: number, fault: Fault): void {
    const faults = this.pages.get(page) ?? [];
    for (let i = 0; i < count; i++) faults.push(fault);
    this.pages.set(page, faults);
  }

  reset(): void {
    this.settings = { latencyMs: 0, errorRate: 0, errorStatus: 503 };
    this.queue = [];
    this.pages.clear();
  }

  /** The fault for the request now arriving (`listPage`: the order list's page it reads, if that), if any. */
  take(listPage?: number): Fault | undefined {
    const queued = this.queue.shift();
    if (queued) return queued;
    const forPage = listPage === undefined ? undefined : this.pages.get(listPage)?.shift();
    if (forPage) return forPage;
    if (this.settings.errorRate > 0 && this.random() < this.settings.errorRate) {
      return { status: this.settings.errorStatus };
    }
    return undefined;
  }
}

/**
 * Reads SIMULATOR_FAULTS, a comma list of `<status, malformed kind, mismatch, drip or oversized>*<count>`,
 * e.g. "503*3,html*1,drip*1": the first three requests get 503, the fourth an HTML page, the fifth its
 * answer one byte a second.
 */
export function parseFaultList(text: string | undefined): Array<{ count: number; fault: Fault }> {
  if (!text?.trim()) return [];
  return text.split(',').map((entry) => {
    const [what = '', countText = '1'] = entry.trim().split('*');
    const count = Number(countText);
    if (!Number.isInteger(count) || count < 1) throw new Error(`SIMULATOR_FAULTS: bad count in "${entry}"`);
    if (/^\d{3}$/.test(what)) return { count, fault: { status: Number(what) } };
    if (what === 'mismatch') return { count, fault: { mismatch: true } };
    if (what === 'drip') return { count, fault: { dripMs: DEFAULT_DRIP_MS } };
    if (what === 'oversized') return { count, fault: { oversizeBytes: DEFAULT_OVERSIZE_BYTES } };
    if ((malformedKinds as readonly string[]).includes(what)) {
      return { count, fault: { malformed: what as MalformedKind } };
    }
    throw new Error(
      `SIMULATOR_FAULTS: "${what}" is neither a status code nor one of ${malformedKinds.join(', ')}, mismatch, drip, oversized`,
    );
  });
}
