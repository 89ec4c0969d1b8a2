import type { Command } from 'commander';
import { resolveConnection } from '../client/connection';
import { LannerApi } from '../client/lanner-api';
import type { OutputFormat } from '../output';

/** The options every API command accepts (declared once on the program). */
export interface GlobalOptions {
  readonly server?: string;
  readonly token?: string;
  readonly tenant?: string;
  readonly profile?: string;
  readonly output: OutputFormat;
}

export interface CommandContext {
  readonly api: LannerApi;
  readonly output: OutputFormat;
}

/** The API client and output format for the command being run. */
export function contextOf(command: Command): CommandContext {
  const options = command.optsWithGlobals<GlobalOptions>();
  return { api: new LannerApi(resolveConnection(options, process.env)), output: options.output };
}

/** Commander's collector for a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
