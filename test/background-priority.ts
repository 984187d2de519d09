import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Every file but the two bursts runs at the lowest CPU priority (nice 19), and so do the servers and
 * processes it starts (they inherit it) and the shared PostgreSQL server (test/global-setup.ts). The
 * bursts (test/reliability/burst.test.ts and partner-faults.test.ts) fire hundreds of commands at
 * once, and each must be acked within Slack's 3 s, or Bolt answers it 404 (they assert that none is,
 * not how fast: that is `npm run bench`'s): at the same priority as three other busy workers on two
 * cores their acks were measured at 2.3-4.5 s; with the rest below them, at 0.4-1.3 s, and the rest
 * slows down only while a burst needs the CPU. The files that start beside the bursts are the first of
 * test/sequencer.ts's list, which hold no tight time bound. Vitest's own process is not lowered.
 * Lowering one's own priority needs no privilege.
 */
const NICE = 19;
// On Linux a priority is a thread's: this worker's threads (V8's, libuv's) are each lowered. Threads
// started later take it from the thread that starts them.
let threads: string[] = [];
try {
  threads = readdirSync('/proc/self/task');
} catch {
  // Not Linux: the process's priority.
}
for (const thread of threads.length > 0 ? threads : ['0']) setPriority(Number(thread), NICE);
