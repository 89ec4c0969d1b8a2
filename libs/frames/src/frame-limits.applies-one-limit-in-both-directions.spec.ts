import { frameSizeChannelOptions, MAX_FRAME_BYTES } from './index';

describe('the frame size limit', () => {
  it('is 4 MiB by default, for sending and receiving alike', () => {
    expect(MAX_FRAME_BYTES).toBe(4 * 1024 * 1024);
    expect(frameSizeChannelOptions()).toEqual({
      'grpc.max_receive_message_length': 4 * 1024 * 1024,
      'grpc.max_send_message_length': 4 * 1024 * 1024,
    });
  });

  it('can be configured, but not to nonsense', () => {
    expect(frameSizeChannelOptions(1024)['grpc.max_receive_message_length']).toBe(1024);
    expect(() => frameSizeChannelOptions(0)).toThrow('the max frame size must be a positive whole number of bytes, got 0');
  });
});
