import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * How long before the server's announced keep-alive timeout an idle pooled socket is closed: the same 1 s as
 * node's own `HTTP_AGENT_KEEP_ALIVE_TIMEOUT_BUFFER`, so the client's close wins the race with the server's.
 */
export const KEEP_ALIVE_TIMEOUT_BUFFER_MS = 1000;

/**
 * The idle timeout for a pooled socket from a response's `Keep-Alive` header (`timeout=N`, in seconds):
 * `N * 1000 - KEEP_ALIVE_TIMEOUT_BUFFER_MS`. `undefined` when the header carries no `timeout`; a value `<= 0`
 * means the server closes too soon for the socket to be reused safely.
 */
export function idleTimeoutFromKeepAlive(header: string | string[] | undefined): number | undefined {
  const text = Array.isArray(header) ? header.join(', ') : header;
  const seconds = text ? /(?:^|[\s,;])timeout=(\d+)/i.exec(text)?.[1] : undefined;
  return seconds === undefined ? undefined : Number(seconds) * 1000 - KEEP_ALIVE_TIMEOUT_BUFFER_MS;
}

/** What node leaves on a socket while it serves a request: the request, and its response once one came. */
type SocketWithRequest = Duplex & { _httpMessage?: { res?: http.IncomingMessage | null } | null };

/** The agent's own `timeout` option (node reads `this.options.timeout` the same way), 0 when unset. */
function agentTimeout(agent: http.Agent): number {
  return (agent as unknown as { options?: { timeout?: number } }).options?.timeout ?? 0;
}

/**
 * What node's `keepSocketAlive` leaves out, for a socket going back to the free pool: an idle timeout from the
 * server's `Keep-Alive: timeout=N` hint, even when the agent has no `timeout` option of its own (node only
 * applies the hint when it is below that option, and 0 means none). The agent destroys a free socket on its
 * 'timeout' event, so the client closes an idle connection about a second before the server would, instead of
 * reusing it just as the server closes it (ECONNRESET). Returns whether the socket may be kept.
 */
function keepWithHint(socket: Duplex, keptByNode: unknown): boolean {
  // node returns false when it will not keep the socket (@types/node types the method as returning void).
  if (keptByNode === false) return false;
  const idle = idleTimeoutFromKeepAlive((socket as SocketWithRequest)._httpMessage?.res?.headers['keep-alive']);
  if (idle === undefined) return true;
  if (idle <= 0) return false;
  // node has set the agent's timeout, lowered to the hint when the hint is below it; 0 means none.
  const tcp = socket as Socket;
  const current = tcp.timeout ?? 0;
  const timeout = current > 0 ? Math.min(current, idle) : idle;
  if (tcp.timeout !== timeout) tcp.setTimeout(timeout);
  return true;
}

/**
 * A socket taken from the pool again gets the agent's own timeout back (0 without a `timeout` option), so the
 * idle timeout never fires on an active request: a watch may stay silent for minutes.
 */
function takeOffIdleTimeout(agent: http.Agent, socket: Duplex): void {
  const tcp = socket as Socket;
  const timeout = agentTimeout(agent);
  if (tcp.timeout !== timeout) tcp.setTimeout(timeout);
}

/**
 * Makes `agent` close idle pooled sockets before the server's keep-alive timeout (see keepWithHint) and take
 * that timeout off a socket a request reuses. Works on `http.Agent` and `https.Agent` alike; returns the agent.
 */
export function honourKeepAliveHint<A extends http.Agent>(agent: A): A {
  const keepSocketAlive = agent.keepSocketAlive.bind(agent);
  const reuseSocket = agent.reuseSocket.bind(agent);
  // node's agent calls these through `this`, so the instance's own methods take over from the prototype's.
  agent.keepSocketAlive = (socket: Duplex) => keepWithHint(socket, keepSocketAlive(socket));
  agent.reuseSocket = (socket: Duplex, request: http.ClientRequest) => {
    reuseSocket(socket, request);
    takeOffIdleTimeout(agent, socket);
  };
  return agent;
}
