import { setPriority } from 'node:os';

/**
 * Every file but the two bursts runs at the lowest CPU priority (nice 19), and so do the servers and
 * processes it starts (they inherit it). The bursts (test/reliability/burst.test.ts and
 * partner-faults.test.ts) fire hundreds of commands at once and hold every ack to Slack's 3 s: at the
 * same priority as four other busy workers on two cores their acks were measured at 2.3-4.5 s; below
 * them, the rest of the suite slows down only while a burst needs the CPU. Lowering one's own
 * priority needs no privilege.
 */
setPriority(19);
