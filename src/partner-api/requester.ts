import { AsyncLocalStorage } from 'node:async_hooks';

// Who a partner request is made for: the person whose Slack request (or Slackbot's tool call) it
// answers. The partner's slots are shared (PARTNER_API_MAX_CONCURRENCY) and people take turns at them
// (turns.ts), so one person's many requests do not hold everyone else's back. Carried with the work
// rather than passed to every partner call, which would thread a user ID through every flow for the
// queue's sake alone.
const requests = new AsyncLocalStorage<string>();

/** The app's own work (the sync, the balance watch, the digest): one requester among the people. */
export const APP_REQUESTER = 'app';

/** Runs `work` with its partner requests made on behalf of `requester` (a Slack user ID). */
export function onBehalfOf<T>(requester: string | undefined, work: () => T): T {
  return requester ? requests.run(requester, work) : work();
}

/** Whom the partner request being made now is for. */
export function currentRequester(): string {
  return requests.getStore() ?? APP_REQUESTER;
}
