// The sandbox's "now": the sandbox server's clock, not the browser's. Slack renders a date token
// ("Today", "Yesterday") against the viewer's real day; the sandbox's partner history and app run on
// the server's clock, which may be moved (docs/development.md: a run on another day), and the page
// keeps the two in step so a recent order reads "Today" on any day.

let offsetMs = 0;

/** Takes the server's clock (ms since the epoch) as the page's, from GET setup. */
export function followServerClock(serverNowMs) {
  if (Number.isFinite(serverNowMs)) offsetMs = serverNowMs - Date.now();
}

/** Now, on the server's clock. */
export function sandboxNow() {
  return new Date(Date.now() + offsetMs);
}
