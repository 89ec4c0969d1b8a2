import { renderTags } from '../index';
import { fleet, placeholderRenderer, queue, resolverFor } from './routing-fixtures';

describe('worker selector: a tag that renders to null or blank is dropped', () => {
  const context = { inputs: { region: 'eu', empty: '   ', none: null } };

  it('drops null, undefined and blank rendered tags and keeps the others in order', () => {
    const tags = renderTags(
      ['gpu', '{{ inputs.none }}', '{{ inputs.missing }}', '{{ inputs.empty }}', '{{ inputs.region }}'],
      placeholderRenderer,
      context,
    );
    expect(tags).toEqual(['gpu', 'eu']);
  });

  it('trims rendered tags and removes the duplicates two templates can produce', () => {
    expect(renderTags([' eu ', '{{ inputs.region }}'], placeholderRenderer, context)).toEqual(['eu']);
  });

  it('routes on the remaining tags only', () => {
    const resolver = resolverFor([queue('gpu', ['gpu']), queue('gpu-eu', ['gpu', 'eu'])], placeholderRenderer);
    const decision = resolver.resolve(
      { tags: ['gpu', '{{ inputs.none }}'] },
      { tenant: 'main', variables: context },
      fleet({ gpu: 1, 'gpu-eu': 1 }),
    );
    expect(decision).toMatchObject({ action: 'DISPATCH', queueId: 'gpu', tags: ['gpu'] });
  });
});
