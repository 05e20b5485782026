/**
 * The Do53 listeners (UDP and TCP), each in its own Worker. `serve.ts`
 * starts them with startDnsListeners and feeds them snapshots.
 */
export {
  type BoundAddress,
  type DnsListenerConfig,
  type DnsListeners,
  type DnsListenersOptions,
  startDnsListeners,
} from "./listeners.ts";
export { describeBindError, ListenerError } from "./listener_error.ts";
export {
  formatListenAddress,
  type ListenAddress,
  parseListenAddress,
} from "./listen_address.ts";
export type {
  CounterDeltas,
  SocketCounters,
  TcpLimits,
  WorkerListener,
  WorkerReply,
  WorkerRequest,
} from "./worker_messages.ts";
export {
  TCP_IDLE_TIMEOUT_MS,
  TCP_MAX_CONNECTIONS,
  TCP_MAX_IN_FLIGHT,
} from "./tcp.ts";
export { UDP_MAX_IN_FLIGHT } from "./udp.ts";
