import { counted } from '../frame.js';

/**
 * "View image key" is a link button: Slack opens the reveal page in the browser and also sends the
 * click here, where it only needs an ack. Nothing is revealed by the click: the page asks for the key
 * when the agent presses Reveal there, and every check happens then.
 */
export function viewImageKeyAction() {
  return counted(async () => 'ok');
}
