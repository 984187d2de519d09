import type { SlackState } from './state.js';
import type { Caller, WebApiArgs, WebApiResult } from './web-api-args.js';

// The shape every Web API family file shares: a map from method name to a handler that reads the
// call's arguments, changes the shared state and returns Slack's JSON answer. Authentication, faults
// and recording happen once, in the router (server.ts), so a handler is only what the method does.

export type { Caller, WebApiArgs, WebApiResult } from './web-api-args.js';
export { asBlocks, parseArgs, parseJsonArg } from './web-api-args.js';

export type WebApiHandler = (args: WebApiArgs, slack: SlackState, caller: Caller) => WebApiResult;

export type WebApiFamily = Readonly<Record<string, WebApiHandler>>;
