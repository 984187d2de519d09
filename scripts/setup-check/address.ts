import { lookup } from 'node:dns/promises';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

// Where a request that got no answer at all went wrong. The partner client reports every such failure
// as one kind ("unavailable") without the system's reason, and "try again later" is the wrong advice
// when the address itself is wrong. So the check asks the network (a name lookup, a TCP connection, a
// TLS handshake for https) and never sends an HTTP request: nothing reaches the partner's API.

export type AddressProbe =
  /** The host name does not resolve (ENOTFOUND, EAI_AGAIN, …). */
  | { kind: 'no_such_host'; code: string }
  /** Nothing listens at host:port: the host answered with a refusal. */
  | { kind: 'refused' }
  /** The connection was neither accepted nor refused in time (a firewall, a wrong address). */
  | { kind: 'no_answer' }
  /** https://, but what answers at host:port does not speak TLS (often a plain http server). */
  | { kind: 'not_tls'; code: string }
  /** TLS, with a certificate Node does not accept (expired, self-signed, another host's). */
  | { kind: 'certificate'; code: string }
  /** Another failure on the way, by its code. */
  | { kind: 'other'; code: string }
  /** Host, port (and TLS) are fine: the request failed later, at the HTTP level. */
  | { kind: 'reachable' };

/** The host and port a URL names, the port filled in from the scheme when the URL has none. */
export function hostAndPort(url: URL): { host: string; port: number } {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
}

const codeOf = (error: unknown) => String((error as { code?: unknown }).code ?? (error as Error).name);

// Node's codes for a peer that is not a TLS server, or a handshake that broke off.
const NOT_TLS = /WRONG_VERSION_NUMBER|EPROTO|ECONNRESET|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL/;
const CERTIFICATE = /CERT|SELF_SIGNED|ALTNAME|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

/** Looks the URL's host up, connects to its port and, for https, shakes hands; within `timeoutMs` each. */
export async function probeAddress(url: URL, timeoutMs: number): Promise<AddressProbe> {
  const { host, port } = hostAndPort(url);
  let address: string;
  try {
    address = (await lookup(host)).address;
  } catch (error) {
    return { kind: 'no_such_host', code: codeOf(error) };
  }
  let socket: Socket;
  try {
    socket = await opened(connectTcp({ host: address, port }), 'connect', timeoutMs);
  } catch (error) {
    if (error === TIMED_OUT) return { kind: 'no_answer' };
    const code = codeOf(error);
    return code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'other', code };
  }
  if (url.protocol !== 'https:') {
    socket.destroy();
    return { kind: 'reachable' };
  }
  try {
    // The host name as the request sends it: a certificate for another host is found here too.
    const tls = connectTls({ socket, servername: /^[\d.:]+$/.test(host) ? undefined : host });
    (await opened(tls, 'secureConnect', timeoutMs)).destroy();
    return { kind: 'reachable' };
  } catch (error) {
    socket.destroy();
    if (error === TIMED_OUT) return { kind: 'not_tls', code: 'no TLS handshake' };
    const code = codeOf(error);
    if (CERTIFICATE.test(code)) return { kind: 'certificate', code };
    return NOT_TLS.test(code) ? { kind: 'not_tls', code } : { kind: 'other', code };
  }
}

const TIMED_OUT = new Error('timed out');

/** Resolves with the socket at `event`, rejects with its error, or with TIMED_OUT (and destroys it). */
function opened<S extends Socket>(socket: S, event: string, timeoutMs: number): Promise<S> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(TIMED_OUT);
    }, timeoutMs);
    socket.once(event, () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}
