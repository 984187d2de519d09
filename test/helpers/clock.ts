/**
 * The real clock (Date.now(), ms since the epoch), the one place tests read it. It is for data that
 * the code under test compares with its own real clock: a Slack message ts or a signing timestamp,
 * a created_at or updated_at, a token's issue time, the time of a post the fake Slack recorded. The
 * app (and the fake Slack and the partner simulator) run on the real clock unless the test gives
 * them one (`now:`, `jobClock:`, holdTime, createFakeClock); a test that gives one takes such data
 * from that clock instead, never from this one.
 *
 * Not for measuring how long something took: that is performance.now() (monotonic; the wall clock
 * can be moved), and a test asserts what the code did, not how fast this machine did it.
 */
export const wallClock = (): number => Date.now();
