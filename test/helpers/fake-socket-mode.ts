import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/**
 * The WebSocket side of Slack's Socket Mode: says hello to the app, delivers envelopes, and collects
 * the app's acknowledgements (an envelope_id sent back).
 */
export class FakeSocketMode extends EventEmitter {
  private server: WebSocketServer | undefined;
  private socket: WebSocket | undefined;
  readonly acks = new Map<string, number>();

  get url(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    return `ws://127.0.0.1:${address?.port ?? 0}/link`;
  }

  async start(): Promise<this> {
    this.server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => this.server?.once('listening', () => resolve()));
    this.server.on('connection', (socket) => {
      this.socket = socket;
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { envelope_id?: string };
        if (message.envelope_id) {
          this.acks.set(message.envelope_id, performance.now());
          this.emit('ack', message.envelope_id);
        }
      });
      socket.send(
        JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A0ORDERDESK' } }),
      );
      this.emit('connected');
    });
    return this;
  }

  /** Resolves once the app's Socket Mode client has connected. */
  connected(): Promise<void> {
    return this.socket
      ? Promise.resolve()
      : new Promise((resolve) => this.once('connected', () => resolve()));
  }

  /** Delivers a slash command; resolves with the time to the app's acknowledgement. */
  sendSlashCommand(payload: Record<string, string>): Promise<number> {
    const envelopeId = randomUUID();
    const sentAt = performance.now();
    const acked = new Promise<number>((resolve) => {
      const onAck = (id: string) => {
        if (id !== envelopeId) return;
        this.off('ack', onAck);
        resolve((this.acks.get(id) ?? sentAt) - sentAt);
      };
      this.on('ack', onAck);
    });
    this.socket?.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type: 'slash_commands',
        payload,
        accepts_response_payload: true,
      }),
    );
    return acked;
  }

  async stop(): Promise<void> {
    for (const client of this.server?.clients ?? []) client.terminate();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
