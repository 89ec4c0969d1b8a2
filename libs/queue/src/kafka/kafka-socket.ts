import { connect as connectTcp, isIP } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';

/** Idle connections are probed after a minute, as kafkajs's own connections are. */
const KEEP_ALIVE_DELAY_MS = 60_000;

/**
 * The connections Lanner's Kafka clients open: kafkajs's own, with Nagle's
 * algorithm off (TCP_NODELAY), as the Java client and librdkafka open theirs.
 * With it on, a small request written while an earlier one on the same
 * connection waits for its answer (a parked fetch, a commit, a produce with
 * acks from all replicas) is held until the broker acknowledges the earlier
 * bytes, up to the 40 ms of a delayed ACK; Kafka batches on its own, so
 * holding small writes saves nothing.
 */
export const kafkaSocketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = ssl
    ? connectTls({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : connectTcp({ host, port }, onConnect);
  socket.setNoDelay(true);
  socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
  return socket;
};
