import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, started first. Vitest starts the files that took longest in the last
 * run first; a fresh clone (CI) has no last run, and vitest orders by file size instead, which would
 * start the browser test (a small file driving a sandbox for half a minute) last and add its whole
 * time to the end of the run. The list: the two bursts (which run beside the rest at a higher CPU
 * priority: vitest.config.ts), then the files that took over 2 s in a whole run, longest first. A
 * file missing from it is only scheduled less well.
 */
const LONGEST_FIRST = [
  'test/reliability/partner-faults.test.ts',
  'test/reliability/burst.test.ts',
  'test/sandbox/browser.test.ts',
  'test/app/shutdown.test.ts',
  'test/app/replicas.test.ts',
  'test/partner-api/answer-bounds.test.ts',
  'test/app/startup.test.ts',
  'test/setup-check/check.test.ts',
  'test/mcp/route.test.ts',
  'test/orders/order-sync.test.ts',
  'test/listeners/partner-turns.test.ts',
  'test/sandbox/slackbot.test.ts',
  'test/mcp/protocol.test.ts',
  'test/manifest.test.ts',
  'test/orders/replicas.test.ts',
  'test/notifications/replicas.test.ts',
  'test/db/order-copy.test.ts',
  'test/notifications/subscriptions.test.ts',
  'test/state/read-through.test.ts',
  'test/state/postgres-server.test.ts',
  'test/reliability/slack-limits.test.ts',
  'test/db/postgres-lost.test.ts',
];

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(relative(file.project.config.root, file.moduleId));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
