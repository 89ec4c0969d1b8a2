import { formatServerSentEvent } from './server-sent-events';

describe('formatServerSentEvent', () => {
  it('writes event, id and one JSON data line, ended by a blank line', () => {
    expect(formatServerSentEvent({ event: 'execution', id: '3', data: { state: { current: 'RUNNING' } } })).toBe(
      'event: execution\nid: 3\ndata: {"state":{"current":"RUNNING"}}\n\n',
    );
  });

  it('keeps a multi-line message on one data line, and strips newlines that would end a field', () => {
    const text = formatServerSentEvent({ event: 'log\nevent: forged', data: { message: 'line one\nline two' } });
    expect(text).toBe('event: logevent: forged\ndata: {"message":"line one\\nline two"}\n\n');
    expect(text.split('\n\n')).toHaveLength(2);
  });
});
