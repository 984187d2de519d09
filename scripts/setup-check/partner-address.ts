import { type AddressProbe, hostAndPort, probeAddress } from './address.js';
import { type Finding, fix } from './findings.js';

// The order list is the check's first request, and one every partner answers. When it gets a 404, or
// no answer at all, the address in PARTNER_API_BASE_URL is the likely cause, not the partner: these
// findings say so and name the setting, instead of "try again in a few minutes".

/** What the client adds to PARTNER_API_BASE_URL for the list (ky joins the two with one slash). */
const LIST_PATH = '/v1/partners/orders';
/** Each network step of the probe (name lookup, connection, TLS handshake) gets this long. */
const PROBE_TIMEOUT_MS = 3_000;

/** The URL as the operator wrote it, less a user name, password, query or trailing slash. */
export function shownUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.search = '';
  copy.hash = '';
  return copy.href.replace(/\/+$/, '');
}

/**
 * The partner answered the list request with a 404 (or 410): the path is not the API's. A base URL
 * with /v1 in it (the docs' most common slip: it is the address without /v1) gets its fix spelled out.
 */
export function listNotFound(baseUrl: string, status: number | undefined, traceId?: string): Finding {
  const base = new URL(baseUrl);
  const asked = `${shownUrl(base)}${LIST_PATH}`;
  const answered = `HTTP ${status ?? 404} (not found)`;
  const trace = traceId ? ` (trace_id ${traceId})` : '';
  const v1 = base.pathname.search(/\/v1(?:\/|$)/i);
  if (v1 >= 0) {
    const suggested = shownUrl(new URL(base.pathname.slice(0, v1) || '/', base));
    return fix(
      `PARTNER_API_BASE_URL has /v1 in it, so the order list was asked for at ${asked} and the partner ` +
        `answered ${answered}${trace}: set PARTNER_API_BASE_URL without /v1 and what follows (${suggested}); ` +
        `Order Desk adds ${LIST_PATH} itself.`,
    );
  }
  const path = base.pathname.replace(/\/+$/, '');
  return fix(
    `The partner answered ${answered} for its order list at ${asked}${trace}: most likely ` +
      "PARTNER_API_BASE_URL is wrong, not the partner. It is the partner API's address without /v1 " +
      `(Order Desk adds ${LIST_PATH})${path ? `: check its path (${path})` : ': check it'}.`,
  );
}

/**
 * The list request got no answer (the client's "unavailable" without an HTTP status): the network
 * says whether the host, the port or the scheme in PARTNER_API_BASE_URL is wrong. `fallback` is the
 * finding when host and port answer fine, so the failure is not the address's.
 */
export async function listUnanswered(
  baseUrl: string,
  fallback: (where: string) => Finding,
): Promise<Finding> {
  const url = new URL(baseUrl);
  const probe = await probeAddress(url, PROBE_TIMEOUT_MS);
  const { host, port } = hostAndPort(url);
  const where = `${host}:${port}`;
  return probe.kind === 'reachable' ? fallback(where) : fix(unansweredText(probe, host, where));
}

function unansweredText(probe: Exclude<AddressProbe, { kind: 'reachable' }>, host: string, where: string) {
  switch (probe.kind) {
    case 'no_such_host':
      return (
        `The host ${host} in PARTNER_API_BASE_URL is not known (${probe.code}): most likely ` +
        "PARTNER_API_BASE_URL is wrong. Check the host name, and that this machine's DNS resolves it."
      );
    case 'refused':
      return (
        `Nothing answers at ${where}, the host and port of PARTNER_API_BASE_URL (connection refused): ` +
        'most likely PARTNER_API_BASE_URL names a wrong port or host. If it is right, the partner API is ' +
        'down: try again in a few minutes.'
      );
    case 'no_answer':
      return (
        `${where} (PARTNER_API_BASE_URL) neither accepted nor refused a connection within ` +
        `${PROBE_TIMEOUT_MS / 1000} s: check the host and port in PARTNER_API_BASE_URL, and that no ` +
        'firewall stands between this machine and the partner.'
      );
    case 'not_tls':
      return (
        `PARTNER_API_BASE_URL is an https:// address, but ${where} does not answer in TLS ` +
        `(${probe.code}): most likely it should start with http://, or the port is wrong.`
      );
    case 'certificate':
      return (
        `The TLS certificate at ${where} is not accepted (${probe.code}): check the host name in ` +
        'PARTNER_API_BASE_URL; if it is right, ask the partner about its certificate (a private ' +
        'certificate authority goes in NODE_EXTRA_CA_CERTS).'
      );
    case 'other':
      return (
        `The order list request got no answer from ${where} (${probe.code}): check ` +
        "PARTNER_API_BASE_URL and this machine's network; if both are right, try again in a few minutes."
      );
  }
}
