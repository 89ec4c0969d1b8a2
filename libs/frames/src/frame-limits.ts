/**
 * The largest gRPC frame either side sends or accepts, by default (FLOWS.md:
 * a job or a result is at most 4 MiB). Larger outputs go to internal storage
 * and travel as `lanner://` URIs. Deployments may configure another limit, but
 * both ends of a stream must use the same one, which is why it lives here.
 */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** The grpc-js channel/server options that enforce a frame limit in both directions. */
export interface FrameSizeChannelOptions {
  'grpc.max_receive_message_length': number;
  'grpc.max_send_message_length': number;
}

export function frameSizeChannelOptions(maxFrameBytes: number = MAX_FRAME_BYTES): FrameSizeChannelOptions {
  if (!Number.isInteger(maxFrameBytes) || maxFrameBytes <= 0) {
    throw new RangeError(`the max frame size must be a positive whole number of bytes, got ${maxFrameBytes}`);
  }
  return {
    'grpc.max_receive_message_length': maxFrameBytes,
    'grpc.max_send_message_length': maxFrameBytes,
  };
}
