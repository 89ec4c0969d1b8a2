import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { ControllerFrame, JobState, PROTOCOL_VERSION, WorkerFrame } from './index';

describe('frames from a peer on a newer minor protocol version', () => {
  it('decode with the fields we know intact and the new ones ignored', () => {
    const hello = WorkerFrame.encode({
      frame: {
        $case: 'hello',
        value: {
          protocolVersion: { ...PROTOCOL_VERSION, minor: 3 },
          workerName: 'w',
          slots: 8,
          labels: { zone: 'a' },
          workerVersion: '2.3.0',
          runningJobs: [],
        },
      },
    }).finish();
    // A field number 1.x does not define, as a newer minor would add it.
    const unknownField = new BinaryWriter()
      .uint32((99 << 3) | 2)
      .string('something new')
      .finish();

    const decoded = WorkerFrame.decode(Buffer.concat([hello, unknownField]));

    expect(decoded.frame).toEqual({
      $case: 'hello',
      value: {
        protocolVersion: { major: 1, minor: 3 },
        workerName: 'w',
        slots: 8,
        labels: { zone: 'a' },
        workerVersion: '2.3.0',
        runningJobs: [],
      },
    });
  });

  it('decode a frame kind we do not know as an empty frame, which a peer can skip', () => {
    const unknownFrame = new BinaryWriter()
      .uint32((42 << 3) | 2)
      .bytes(new Uint8Array([8, 1]))
      .finish();

    expect(ControllerFrame.decode(unknownFrame).frame).toBeUndefined();
  });

  it('keep an enum value we do not know distinguishable from the ones we do', () => {
    const result = new BinaryWriter()
      .uint32((5 << 3) | 2)
      .fork()
      .uint32((3 << 3) | 0)
      .int32(9)
      .join()
      .finish();

    const decoded = WorkerFrame.decode(result);

    expect(decoded.frame?.$case).toBe('jobResult');
    expect(decoded.frame?.$case === 'jobResult' && decoded.frame.value.state).toBe(9);
    expect(Object.values(JobState)).not.toContain(9);
  });
});
