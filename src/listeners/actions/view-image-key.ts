import { ActionIds } from '../../blocks/index.js';
import type { ListenerDeps } from '../listener-deps.js';
import { simpleClick } from './simple-click.js';

/**
 * "View image key" is a link button: Slack opens the reveal page in the browser and also sends the
 * click here, where it only needs an ack. Nothing is revealed by the click: the page asks for the key
 * when the agent presses Reveal there, and every check happens then.
 */
export function viewImageKeyAction(deps: ListenerDeps) {
  return simpleClick(deps, async () => 'ok', ActionIds.viewImageKey);
}
