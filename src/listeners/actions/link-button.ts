import { counted } from '../frame.js';

/**
 * A link button ("Open in the partner platform", "View image key"): Slack opens its page in the
 * browser and also sends the click here, where it only needs an ack (without one, Slack shows the
 * clicker a warning and Bolt logs an unacknowledged request). Nothing is checked or answered here:
 * the reveal page asks for an image key when the agent presses Reveal there, and checks everything then.
 */
export function linkButtonAction() {
  return counted(async () => 'ok');
}
