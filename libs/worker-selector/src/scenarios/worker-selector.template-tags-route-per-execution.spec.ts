import { ExpressionError } from '@lanner/expressions';
import { expressionTagRenderer } from '../index';
import { fleet, queue, resolverFor } from './routing-fixtures';

// The selector's tags go through the real expression language, so the same
// flow routes each execution by its own inputs.
describe('worker selector: template tags rendered by the expression language route per execution', () => {
  const queues = [queue('gpu-eu', ['gpu', 'eu']), queue('gpu-us', ['gpu', 'us']), queue('gpu', ['gpu'])];
  const available = fleet({ 'gpu-eu': 1, 'gpu-us': 1, gpu: 1 });
  const resolver = resolverFor(queues, expressionTagRenderer(new Date('2026-11-30T00:00:00Z')));
  const selector = { tags: ['gpu', '{{ inputs.region }}'], match: 'ALL' as const };

  it('sends two executions with different inputs to different queues', () => {
    const eu = resolver.resolve(selector, { tenant: 'main', variables: { inputs: { region: 'eu' } } }, available);
    const us = resolver.resolve(selector, { tenant: 'main', variables: { inputs: { region: 'us' } } }, available);
    expect([eu.action, eu.queueId, eu.tags]).toEqual(['DISPATCH', 'gpu-eu', ['gpu', 'eu']]);
    expect([us.action, us.queueId, us.tags]).toEqual(['DISPATCH', 'gpu-us', ['gpu', 'us']]);
  });

  it('uses filters of the language (upper-case input lower-cased into a tag)', () => {
    const decision = resolver.resolve(
      { tags: ['gpu', '{{ inputs.region | lower }}'] },
      { tenant: 'main', variables: { inputs: { region: 'US' } } },
      available,
    );
    expect(decision.queueId).toBe('gpu-us');
  });

  it('drops a tag whose input is absent or blank, routing on the tags left', () => {
    const absent = resolver.resolve(selector, { tenant: 'main', variables: { inputs: {} } }, available);
    const blank = resolver.resolve(selector, { tenant: 'main', variables: { inputs: { region: '  ' } } }, available);
    expect([absent.queueId, absent.tags]).toEqual(['gpu', ['gpu']]);
    expect([blank.queueId, blank.tags]).toEqual(['gpu', ['gpu']]);
  });

  it('sends a selector whose only tag renders blank to the default queue', () => {
    const decision = resolver.resolve(
      { tags: ['{{ inputs.region }}'] },
      { tenant: 'main', variables: { inputs: {} } },
      available,
    );
    expect([decision.action, decision.queueId]).toEqual(['DISPATCH', 'default']);
  });

  it('reports a broken template as an expression error naming it', () => {
    expect(() =>
      resolver.resolve(
        { tags: ['{{ inputs.region | }}'] },
        { tenant: 'main', variables: { inputs: { region: 'eu' } } },
        available,
      ),
    ).toThrow(ExpressionError);
  });
});
