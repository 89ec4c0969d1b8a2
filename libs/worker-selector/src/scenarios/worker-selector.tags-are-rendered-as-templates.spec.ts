import { TagTemplateNotSupported, literalTagRenderer, type TagRenderer } from '../index';
import { fleet, placeholderRenderer, queue, resolverFor } from './routing-fixtures';

describe('worker selector: tags are rendered as templates against the execution context', () => {
  const queues = [queue('gpu-eu', ['gpu', 'eu']), queue('gpu-us', ['gpu', 'us'])];
  const available = fleet({ 'gpu-eu': 1, 'gpu-us': 1 });

  it('routes by the rendered value', () => {
    const resolver = resolverFor(queues, placeholderRenderer);
    const selector = { tags: ['gpu', '{{ inputs.region }}'] };
    expect(resolver.resolve(selector, { tenant: 'main', variables: { inputs: { region: 'us' } } }, available).queueId).toBe(
      'gpu-us',
    );
    expect(resolver.resolve(selector, { tenant: 'main', variables: { inputs: { region: 'eu' } } }, available).queueId).toBe(
      'gpu-eu',
    );
  });

  it('hands the renderer each template and the execution context', () => {
    const seen: Array<[string, unknown]> = [];
    const recording: TagRenderer = (template, context) => {
      seen.push([template, context]);
      return template;
    };
    const variables = { inputs: { region: 'eu' } };
    resolverFor(queues, recording).resolve({ tags: ['gpu', 'eu'] }, { tenant: 'main', variables }, available);
    expect(seen).toEqual([
      ['gpu', variables],
      ['eu', variables],
    ]);
  });

  it('the default renderer takes literal tags as they are', () => {
    expect(resolverFor(queues).resolve({ tags: ['gpu', 'eu'] }, { tenant: 'main' }, available).queueId).toBe('gpu-eu');
  });

  it('the default renderer refuses a template instead of routing on its raw text', () => {
    expect(() => literalTagRenderer('{{ inputs.region }}', {})).toThrow(TagTemplateNotSupported);
  });
});
