import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES } from './config-variables';
import { renderConfigurationDoc } from './configuration-doc';

describe('docs/CONFIGURATION.md', () => {
  it('is the rendering of the variable table (regenerate with `node bin/lanner.js config doc > docs/CONFIGURATION.md`)', () => {
    const committed = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'CONFIGURATION.md'), 'utf8');
    expect(committed).toBe(renderConfigurationDoc());
  });

  it('documents every variable with its default', () => {
    const doc = renderConfigurationDoc();
    for (const variable of CONFIG_VARIABLES) {
      expect(doc).toContain(`| \`${variable.name}\` |`);
      expect(variable.defaultText.length).toBeGreaterThan(0);
    }
  });
});
