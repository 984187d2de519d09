import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server that can stall: while stalled it accepts
 * connections and takes their bytes but passes nothing on, either way, as a server that stopped
 * answering does; `resume()` passes on what it held. `silent: true` never forwards (no server behind).
 */
export interface StallingProxy {
  port: number;
  url: string;
  stall(): void;
  resume(): void;
  /** What clients sent while stalled (held, or never forwarded), as text: the commands that met the stall. */
  heardWhileStalled(): string;
  close(): Promise<void>;
}

export async function startStallingProxy(target: { port: number } | 'silent'): Promise<StallingProxy> {
  let stalled = target === 'silent';
  const held: Array<() => void> = [];
  let heard = '';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.on('close', () => sockets.delete(client));
    if (target === 'silent')
      return client.on('data', (data: Buffer) => {
        heard += data.toString('latin1');
      });
    const upstream = net.connect(target.port, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const pass = (to: net.Socket) => (data: Buffer) => {
      if (!stalled) {
        to.write(data);
        return;
      }
      if (to === upstream) heard += data.toString('latin1');
      held.push(() => to.write(data));
    };
    client.on('data', pass(upstream));
    upstream.on('data', pass(client));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stall: () => {
      stalled = true;
    },
    heardWhileStalled: () => heard,
    resume: () => {
      stalled = false;
      for (const write of held.splice(0)) write();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
