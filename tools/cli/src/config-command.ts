import { renderConfigurationDoc } from '@lanner/runtime';

/** `lanner config doc`: the reference of every environment variable (docs/CONFIGURATION.md). */
export function printConfigurationDoc(): void {
  process.stdout.write(renderConfigurationDoc());
}
