import { kafkaClusterId, kafkaServerProperties } from './kafka-properties';

function parse(text: string): Map<string, string> {
  const entries = text
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)] as const;
    });
  return new Map(entries);
}

describe('server.properties for the local broker', () => {
  const properties = parse(kafkaServerProperties({ brokerPort: 40001, controllerPort: 40002, logDir: '/data/kafka' }));

  it('runs one node as both broker and KRaft controller', () => {
    expect(properties.get('process.roles')).toBe('broker,controller');
    expect(properties.get('controller.quorum.voters')).toBe('1@127.0.0.1:40002');
    expect(properties.get('controller.listener.names')).toBe('CONTROLLER');
  });

  it('listens and advertises on loopback only, on the chosen ports', () => {
    expect(properties.get('listeners')).toBe('PLAINTEXT://127.0.0.1:40001,CONTROLLER://127.0.0.1:40002');
    expect(properties.get('advertised.listeners')).toBe('PLAINTEXT://127.0.0.1:40001');
  });

  it('keeps its data in the given folder', () => {
    expect(properties.get('log.dirs')).toBe('/data/kafka');
  });

  it('gives every internal topic a single replica, since there is one broker', () => {
    for (const key of [
      'offsets.topic.replication.factor',
      'transaction.state.log.replication.factor',
      'transaction.state.log.min.isr',
      'share.coordinator.state.topic.replication.factor',
    ]) {
      expect(properties.get(key)).toBe('1');
    }
  });

  it('lets a consumer group start without the default rebalance delay', () => {
    expect(properties.get('group.initial.rebalance.delay.ms')).toBe('0');
  });

  it('accepts records of a 4 MiB job or result with its envelope (5 MiB), not just the 1 MiB default', () => {
    expect(properties.get('message.max.bytes')).toBe(String(5 * 1024 * 1024));
    expect(properties.get('replica.fetch.max.bytes')).toBe(String(5 * 1024 * 1024));
  });

  it('escapes backslashes in a Windows data path', () => {
    const windows = parse(kafkaServerProperties({ brokerPort: 1, controllerPort: 2, logDir: 'C:\\kafka\\data' }));
    expect(windows.get('log.dirs')).toBe('C:\\\\kafka\\\\data');
  });
});

describe('the cluster id of a new local broker', () => {
  it('is 16 bytes in URL-safe base64, drawn again while it would start with "-" (read as an option by kafka-storage)', () => {
    // 0xf8 encodes to "-" in the first place, 0x00 to "A".
    const draws = [Buffer.alloc(16, 0xf8), Buffer.alloc(16, 0xfb), Buffer.alloc(16, 0x00)];
    const sizes: number[] = [];
    const id = kafkaClusterId((size) => {
      sizes.push(size);
      return draws.shift() ?? Buffer.alloc(size);
    });
    expect(id).toBe(Buffer.alloc(16, 0x00).toString('base64url'));
    expect(id).toHaveLength(22);
    expect(sizes).toEqual([16, 16, 16]);
    expect(Buffer.alloc(16, 0xf8).toString('base64url').startsWith('-')).toBe(true);
  });
});
