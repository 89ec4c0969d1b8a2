import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import type { ISocketFactoryArgs } from 'kafkajs';
import { kafkaSocketFactory } from './kafka-socket';

describe("the Kafka clients' connections", () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((peer) => peer.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  afterEach(() => jest.restoreAllMocks());

  it("turn off Nagle's algorithm and keep idle connections alive, and connect to the broker asked for", async () => {
    const noDelay = jest.spyOn(Socket.prototype, 'setNoDelay');
    const keepAlive = jest.spyOn(Socket.prototype, 'setKeepAlive');
    let socket: Socket | undefined;
    await new Promise<void>((resolve) => {
      // kafkajs passes no ssl for a plaintext broker, whatever its type says.
      socket = kafkaSocketFactory({
        host: '127.0.0.1',
        port,
        ssl: undefined as unknown as ISocketFactoryArgs['ssl'],
        onConnect: resolve,
      });
    });
    expect(socket?.remotePort).toBe(port);
    expect(noDelay).toHaveBeenCalledWith(true);
    expect(noDelay.mock.contexts).toContain(socket);
    expect(keepAlive).toHaveBeenCalledWith(true, 60_000);
    socket?.destroy();
  });
});
