import type { Command } from 'commander';
import { CliError } from '../client/cli-error';
import { print } from '../output';
import { collect, contextOf } from './context';

interface WorkerQueueView {
  readonly id: string;
  readonly tags: readonly string[];
  readonly allowedTenants: readonly string[] | null;
  readonly description: string | null;
  readonly reserved: boolean;
}

interface SubscriptionView {
  readonly workerQueueId: string;
  readonly reservedPercent?: number | null;
  readonly mode: string;
}

interface WorkerGroupView {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly subscriptions: readonly SubscriptionView[];
}

interface RegistrationTokenView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** `queue[:percent][:STRICT|ELASTIC]`, e.g. `gpu:30:ELASTIC`; the server validates the values. */
export function subscriptionOf(text: string): { workerQueueId: string; reservedPercent?: number; mode?: string } {
  const [workerQueueId, ...rest] = text.split(':');
  if (!workerQueueId) throw new CliError(`--subscribe '${text}' must be queue[:percent][:mode]`, 2);
  const subscription: { workerQueueId: string; reservedPercent?: number; mode?: string } = { workerQueueId };
  for (const part of rest) {
    if (/^\d+(\.\d+)?$/.test(part)) subscription.reservedPercent = Number(part);
    else if (part !== '') subscription.mode = part.toUpperCase();
  }
  return subscription;
}

function subscriptionText(s: SubscriptionView): string {
  return [
    s.workerQueueId,
    s.reservedPercent === undefined || s.reservedPercent === null ? undefined : `${s.reservedPercent}%`,
    s.mode,
  ]
    .filter(Boolean)
    .join(':');
}

const QUEUE_COLUMNS = [
  { header: 'ID', value: (q: WorkerQueueView) => q.id },
  { header: 'TAGS', value: (q: WorkerQueueView) => q.tags },
  {
    header: 'TENANTS',
    value: (q: WorkerQueueView) => (q.allowedTenants && q.allowedTenants.length > 0 ? q.allowedTenants : '*'),
  },
  { header: 'DESCRIPTION', value: (q: WorkerQueueView) => q.description },
];

const GROUP_COLUMNS = [
  { header: 'ID', value: (g: WorkerGroupView) => g.id },
  { header: 'NAME', value: (g: WorkerGroupView) => g.name },
  { header: 'SUBSCRIPTIONS', value: (g: WorkerGroupView) => g.subscriptions.map(subscriptionText) },
];

const TOKEN_COLUMNS = [
  { header: 'ID', value: (t: RegistrationTokenView) => t.id },
  { header: 'NAME', value: (t: RegistrationTokenView) => t.name },
  { header: 'CREATED', value: (t: RegistrationTokenView) => t.createdAt },
  { header: 'LAST USED', value: (t: RegistrationTokenView) => t.lastUsedAt },
  { header: 'REVOKED', value: (t: RegistrationTokenView) => t.revokedAt },
];

export function registerTopologyCommands(program: Command): void {
  const queue = program.command('worker-queue').description('worker queues (instance admin)');

  queue.command('list').action(async (_options: unknown, command: Command) => {
    const { api, output } = contextOf(command);
    const { body } = await api.request<WorkerQueueView[]>('GET', api.instancePath('worker-queues'));
    print(output, body, body, QUEUE_COLUMNS);
  });

  queue
    .command('get')
    .argument('<id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { api, output } = contextOf(command);
      const { body } = await api.request<WorkerQueueView>('GET', api.instancePath('worker-queues', id));
      print(output, body, [body], QUEUE_COLUMNS);
    });

  queue
    .command('apply')
    .description('create or replace a worker queue (idempotent)')
    .argument('<id>')
    .requiredOption('--tags <tags>', 'comma-separated tags workers of this queue carry', list)
    .option('--allowed-tenants <tenants>', 'comma-separated tenants that may use it (default: all)', list)
    .option('--description <text>')
    .action(
      async (id: string, options: { tags: string[]; allowedTenants?: string[]; description?: string }, command: Command) => {
        const { api, output } = contextOf(command);
        const { status, body } = await api.request<WorkerQueueView>('PUT', api.instancePath('worker-queues', id), {
          body: {
            tags: options.tags,
            ...(options.allowedTenants ? { allowedTenants: options.allowedTenants } : {}),
            ...(options.description === undefined ? {} : { description: options.description }),
          },
        });
        process.stderr.write(`worker queue ${id} ${status === 201 ? 'created' : 'applied'}\n`);
        print(output, body, [body], QUEUE_COLUMNS);
      },
    );

  queue
    .command('delete')
    .argument('<id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { api } = contextOf(command);
      await api.request('DELETE', api.instancePath('worker-queues', id));
      process.stderr.write(`worker queue ${id} deleted\n`);
    });

  const group = program.command('worker-group').description('worker groups and their subscriptions (instance admin)');

  group.command('list').action(async (_options: unknown, command: Command) => {
    const { api, output } = contextOf(command);
    const { body } = await api.request<WorkerGroupView[]>('GET', api.instancePath('worker-groups'));
    print(output, body, body, GROUP_COLUMNS);
  });

  group
    .command('get')
    .argument('<id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { api, output } = contextOf(command);
      const { body } = await api.request<WorkerGroupView>('GET', api.instancePath('worker-groups', id));
      print(output, body, [body], GROUP_COLUMNS);
    });

  group
    .command('apply')
    .description('create or replace a worker group with exactly the subscriptions given (idempotent)')
    .argument('<id>')
    .option('--name <name>', 'display name (default: the id)')
    .option('--description <text>')
    .option('-s, --subscribe <queue[:percent][:mode]>', 'a subscription, e.g. gpu:30:ELASTIC (repeatable)', collect, [])
    .action(async (id: string, options: { name?: string; description?: string; subscribe: string[] }, command: Command) => {
      const subscriptions = options.subscribe.map(subscriptionOf);
      const { api, output } = contextOf(command);
      const { status, body } = await api.request<WorkerGroupView>('PUT', api.instancePath('worker-groups', id), {
        body: {
          name: options.name ?? id,
          ...(options.description === undefined ? {} : { description: options.description }),
          subscriptions,
        },
      });
      process.stderr.write(`worker group ${id} ${status === 201 ? 'created' : 'applied'}\n`);
      print(output, body, [body], GROUP_COLUMNS);
    });

  group
    .command('delete')
    .argument('<id>')
    .action(async (id: string, _options: unknown, command: Command) => {
      const { api } = contextOf(command);
      await api.request('DELETE', api.instancePath('worker-groups', id));
      process.stderr.write(`worker group ${id} deleted\n`);
    });

  group
    .command('subscribe')
    .description('add or change one subscription of a group')
    .argument('<group>')
    .argument('<queue>')
    .option('--reserved-percent <percent>', 'share of the group reserved for this queue', Number)
    .option('--mode <mode>', 'STRICT or ELASTIC')
    .action(async (groupId: string, queueId: string, options: { reservedPercent?: number; mode?: string }, command: Command) => {
      const { api, output } = contextOf(command);
      const { body } = await api.request<SubscriptionView>(
        'PUT',
        api.instancePath('worker-groups', groupId, 'subscriptions', queueId),
        {
          body: {
            ...(options.reservedPercent === undefined ? {} : { reservedPercent: options.reservedPercent }),
            ...(options.mode ? { mode: options.mode.toUpperCase() } : {}),
          },
        },
      );
      print(output, body, [body], [{ header: 'SUBSCRIPTION', value: subscriptionText }]);
    });

  group
    .command('unsubscribe')
    .argument('<group>')
    .argument('<queue>')
    .action(async (groupId: string, queueId: string, _options: unknown, command: Command) => {
      const { api } = contextOf(command);
      await api.request('DELETE', api.instancePath('worker-groups', groupId, 'subscriptions', queueId));
      process.stderr.write(`worker group ${groupId} no longer subscribes to ${queueId}\n`);
    });

  const token = program.command('token').description("worker groups' registration tokens (instance admin)");

  token
    .command('list')
    .argument('<group>')
    .action(async (groupId: string, _options: unknown, command: Command) => {
      const { api, output } = contextOf(command);
      const { body } = await api.request<RegistrationTokenView[]>('GET', api.instancePath('worker-groups', groupId, 'tokens'));
      print(output, body, body, TOKEN_COLUMNS);
    });

  token
    .command('create')
    .alias('apply')
    .description('mint a registration token; its value is printed this once, alone on stdout (table output)')
    .argument('<group>')
    .requiredOption('--name <name>')
    .action(async (groupId: string, options: { name: string }, command: Command) => {
      const { api, output } = contextOf(command);
      const { body } = await api.request<{ id: string; name: string; token: string }>(
        'POST',
        api.instancePath('worker-groups', groupId, 'tokens'),
        { body: { name: options.name } },
      );
      if (output === 'json') process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      else {
        process.stderr.write(
          `registration token ${body.id} (${body.name}) for worker group ${groupId}; store its value now, it is not shown again\n`,
        );
        process.stdout.write(`${body.token}\n`);
      }
    });

  token
    .command('revoke')
    .alias('delete')
    .argument('<group>')
    .argument('<tokenId>')
    .action(async (groupId: string, tokenId: string, _options: unknown, command: Command) => {
      const { api } = contextOf(command);
      await api.request('DELETE', api.instancePath('worker-groups', groupId, 'tokens', tokenId));
      process.stderr.write(`registration token ${tokenId} revoked\n`);
    });
}
