import type { App } from '@slack/bolt';
import type { AppDeps } from '../app/deps.js';
import { registerActions } from './actions/index.js';
import { registerCommands } from './commands/index.js';
import { registerEvents } from './events/index.js';
import { listenerFrame } from './frame.js';
import { registerFunctions } from './functions/index.js';
import { registerShortcuts } from './shortcuts/index.js';
import { registerViews } from './views/index.js';

export function registerListeners(app: App, deps: AppDeps): void {
  // Before every listener: the ack, the metrics, the work in flight and the bugs, once (frame.ts).
  app.use(listenerFrame(deps));
  registerCommands(app, deps);
  registerActions(app, deps);
  registerEvents(app, deps);
  registerFunctions(app, deps);
  registerShortcuts(app, deps);
  registerViews(app, deps);
}
