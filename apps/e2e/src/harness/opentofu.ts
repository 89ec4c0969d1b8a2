import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workspaceRoot } from './role-process';

export interface TofuRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const PROVIDER_SOURCE = 'lanner/lanner';

/**
 * The real OpenTofu CLI (built once into the cache by tools/ci/install-tofu.sh) with
 * Lanner's provider built from deploy/terraform/provider and wired in through a CLI
 * config's `dev_overrides`: no registry, no `tofu init`.
 */
export class OpenTofu {
  private constructor(
    private readonly tofu: string,
    private readonly cliConfig: string,
    private readonly env: Record<string, string>,
    private readonly root: string,
  ) {}

  /** Builds (or finds in the caches) OpenTofu and the provider; `env` reaches the provider (LANNER_URL, LANNER_TOKEN). */
  static prepare(env: Record<string, string>): OpenTofu {
    const tofu = execFileSync(join(workspaceRoot, 'tools', 'ci', 'install-tofu.sh'), {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    const root = mkdtempSync(join(tmpdir(), 'lanner-tofu-'));
    const providerDir = join(root, 'provider');
    execFileSync('go', ['build', '-trimpath', '-o', join(providerDir, 'terraform-provider-lanner'), '.'], {
      cwd: join(workspaceRoot, 'deploy', 'terraform', 'provider'),
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const cliConfig = join(root, 'tofurc');
    writeFileSync(
      cliConfig,
      `provider_installation {\n  dev_overrides {\n    "${PROVIDER_SOURCE}" = "${providerDir}"\n  }\n  direct {}\n}\n`,
    );
    return new OpenTofu(tofu, cliConfig, env, root);
  }

  /** A fresh working directory holding `main.tf` (and whatever else `files` names). */
  workspace(name: string, files: Record<string, string>): string {
    const dir = join(this.root, name);
    mkdirSync(dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    return dir;
  }

  /** Removes the provider build, the CLI config and every workspace. */
  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  run(dir: string, args: readonly string[]): Promise<TofuRun> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.tofu, [...args], {
        cwd: dir,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: this.root,
          TF_CLI_CONFIG_FILE: this.cliConfig,
          TF_IN_AUTOMATION: '1',
          CHECKPOINT_DISABLE: '1',
          ...this.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  apply(dir: string, ...extra: string[]): Promise<TofuRun> {
    return this.run(dir, ['apply', '-auto-approve', '-input=false', '-no-color', ...extra]);
  }

  /** `plan -detailed-exitcode`: 0 no changes, 2 changes, 1 an error. */
  plan(dir: string, ...extra: string[]): Promise<TofuRun> {
    return this.run(dir, ['plan', '-detailed-exitcode', '-input=false', '-no-color', ...extra]);
  }

  destroy(dir: string, ...extra: string[]): Promise<TofuRun> {
    return this.run(dir, ['destroy', '-auto-approve', '-input=false', '-no-color', ...extra]);
  }
}
