import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_PROFILE, profilePath, type ProfileEntry, readProfileFile } from '../client/connection';

export function registerProfileCommands(program: Command): void {
  const profile = program.command('profile').description('saved server URLs and tokens (the profile file, mode 0600)');

  profile
    .command('set')
    .description('save a server URL, token and tenant under a profile name')
    .argument('[name]', 'profile name', DEFAULT_PROFILE)
    .addHelpText(
      'after',
      '\nTakes the global --server, --token and --tenant: lanner profile set prod --server https://lanner.example.com --token <token>',
    )
    .action((name: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<{ server?: string; token?: string; tenant?: string }>();
      const path = profilePath(process.env);
      const file = readProfileFile(path);
      const entry: ProfileEntry = { ...file.profiles[name] };
      if (options.server !== undefined) entry.url = options.server;
      if (options.token !== undefined) entry.token = options.token;
      if (options.tenant !== undefined) entry.tenant = options.tenant;
      file.profiles[name] = entry;
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      chmodSync(path, 0o600);
      process.stderr.write(`profile '${name}' saved in ${path}\n`);
    });

  profile
    .command('list')
    .description('the saved profiles (tokens not shown)')
    .action(() => {
      const file = readProfileFile(profilePath(process.env));
      for (const [name, entry] of Object.entries(file.profiles)) {
        process.stdout.write(`${name}\t${entry.url ?? '-'}\t${entry.tenant ?? '-'}\t${entry.token ? 'token set' : 'no token'}\n`);
      }
    });
}
