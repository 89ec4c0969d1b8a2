import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { apiUrl, call } from '../api/client';
import type {
  ConnectedWorker,
  GroupCapacity,
  NewRegistrationToken,
  RegistrationToken,
  ServiceInstance,
  WorkerGroup,
  WorkerQueue,
} from '../api/views';
import { CapacityBar } from '../components/CapacityBar';
import { ProblemView } from '../components/ProblemView';
import { StateBadge } from '../components/StateBadge';

/** Capacity and connections change as jobs run: re-read this often. */
const LIVE_MS = 2000;

/** The instance's worker fleet (instance admins): queues, groups, their workers and capacity, registration tokens, services. */
export function FleetPage() {
  const queues = useQuery({
    queryKey: ['fleet', 'queues'],
    queryFn: () => call<WorkerQueue[]>('GET', apiUrl('/api/v1/instance/worker-queues')),
    refetchInterval: LIVE_MS * 2,
  });
  const groups = useQuery({
    queryKey: ['fleet', 'groups'],
    queryFn: () => call<WorkerGroup[]>('GET', apiUrl('/api/v1/instance/worker-groups')),
    refetchInterval: LIVE_MS,
  });
  const services = useQuery({
    queryKey: ['fleet', 'services'],
    queryFn: () => call<ServiceInstance[]>('GET', apiUrl('/api/v1/instance/services')),
    refetchInterval: LIVE_MS * 2,
  });

  return (
    <section>
      <div className="page-head">
        <h1>Fleet</h1>
      </div>
      <ProblemView error={queues.error ?? groups.error ?? services.error} />
      <h2>Worker groups</h2>
      {groups.data?.map((group) => (
        <GroupCard key={group.id} group={group} />
      ))}
      <h2>Worker queues</h2>
      {queues.data && (
        <table>
          <thead>
            <tr>
              <th>Queue</th>
              <th>Tags</th>
              <th>Tenants</th>
              <th>Description</th>
            </tr>
          </thead>
          <tbody>
            {queues.data.map((queue) => (
              <tr key={queue.id}>
                <td>
                  <code>{queue.id}</code>
                  {queue.reserved && <span className="hint"> reserved</span>}
                </td>
                <td>
                  {queue.tags?.length ? (
                    queue.tags.map((tag) => (
                      <span className="tag" key={tag}>
                        {tag}
                      </span>
                    ))
                  ) : (
                    <span className="hint">none</span>
                  )}
                </td>
                <td>{queue.allowedTenants?.length ? queue.allowedTenants.join(', ') : 'all'}</td>
                <td>{queue.description ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Services</h2>
      {services.data && (
        <table>
          <thead>
            <tr>
              <th>Instance</th>
              <th>Role</th>
              <th>Host</th>
              <th>State</th>
              <th>Last heartbeat</th>
            </tr>
          </thead>
          <tbody>
            {services.data.map((service) => (
              <tr key={service.id}>
                <td>
                  <code>{service.id}</code>
                </td>
                <td>{service.role}</td>
                <td>{service.host}</td>
                <td>{service.state && <StateBadge state={service.state} />}</td>
                <td>{service.heartbeatAt ? new Date(service.heartbeatAt).toLocaleTimeString() : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function GroupCard({ group }: { group: WorkerGroup }) {
  const id = group.id ?? '';
  const workers = useQuery({
    queryKey: ['fleet', 'workers', id],
    queryFn: () => call<ConnectedWorker[]>('GET', apiUrl('/api/v1/instance/worker-groups/{id}/workers', { id })),
    refetchInterval: LIVE_MS,
  });
  const capacity = useQuery({
    queryKey: ['fleet', 'capacity', id],
    queryFn: () => call<GroupCapacity>('GET', apiUrl('/api/v1/instance/worker-groups/{id}/capacity', { id })),
    refetchInterval: LIVE_MS,
  });
  const connected = new Map((workers.data ?? []).map((worker) => [worker.id, worker]));

  return (
    <article className="card group" aria-label={`Worker group ${id}`}>
      <h3>
        {group.name ?? id} <code className="hint">{id}</code>
      </h3>
      {group.description && <p className="hint">{group.description}</p>}
      <p>
        Subscriptions:{' '}
        {group.subscriptions?.length
          ? group.subscriptions.map((subscription) => (
              <span className="tag" key={subscription.workerQueueId}>
                {subscription.workerQueueId} · {subscription.mode ?? 'STRICT'}
                {subscription.reservedPercent !== null &&
                  subscription.reservedPercent !== undefined &&
                  ` · ${subscription.reservedPercent}% reserved`}
              </span>
            ))
          : 'none (its workers take no jobs)'}
      </p>
      <ProblemView error={workers.error ?? capacity.error} />
      {capacity.data?.workers?.length === 0 && (
        <p className="empty">No worker is connected. Start one with a registration token of this group (below).</p>
      )}
      {capacity.data?.workers?.map((worker) => {
        const info = connected.get(worker.workerId ?? '');
        return (
          <div className="worker" key={worker.workerId}>
            <div className="worker-head">
              <strong>{worker.name}</strong> <code className="hint">{worker.workerId}</code>{' '}
              <StateBadge state={worker.state ?? 'CONNECTED'} />
              <span className="hint">
                {worker.slots} slot(s){info?.controller && ` · controller ${info.controller}`}
                {!worker.reported && ' · no capacity report yet'}
              </span>
            </div>
            <CapacityBar
              label={`${worker.name ?? worker.workerId} capacity`}
              slots={worker.slots ?? 0}
              reserved={worker.reserved ?? 0}
              used={worker.used ?? 0}
              borrowed={worker.borrowed ?? 0}
            />
            <table className="compact">
              <tbody>
                {worker.subscriptions?.map((subscription) => (
                  <tr key={subscription.workerQueueId}>
                    <td>
                      <code>{subscription.workerQueueId}</code> <span className="hint">{subscription.mode}</span>
                    </td>
                    <td className="bar-cell">
                      <CapacityBar
                        label={`${worker.name ?? worker.workerId} on ${subscription.workerQueueId}`}
                        slots={worker.slots ?? 0}
                        reserved={subscription.reserved ?? 0}
                        used={subscription.used ?? 0}
                        borrowed={subscription.borrowed ?? 0}
                      />
                    </td>
                    <td className="figures">
                      reserved {subscription.reserved ?? 0} · used {subscription.used ?? 0} · borrowed{' '}
                      {subscription.borrowed ?? 0} · waiting {subscription.waiting ?? 0}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        );
      })}
      <Tokens groupId={id} />
    </article>
  );
}

function Tokens({ groupId }: { groupId: string }) {
  const queryClient = useQueryClient();
  const key = ['fleet', 'tokens', groupId];
  const tokens = useQuery({
    queryKey: key,
    queryFn: () => call<RegistrationToken[]>('GET', apiUrl('/api/v1/instance/worker-groups/{id}/tokens', { id: groupId })),
  });
  const [name, setName] = useState('');
  const mint = useMutation({
    mutationFn: () =>
      call<NewRegistrationToken>('POST', apiUrl('/api/v1/instance/worker-groups/{id}/tokens', { id: groupId }), {
        json: { name },
      }),
    onSuccess: () => {
      setName('');
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: (tokenId: string) =>
      call('DELETE', apiUrl('/api/v1/instance/worker-groups/{id}/tokens/{tokenId}', { id: groupId, tokenId })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mint.mutate();
  };
  const active = (tokens.data ?? []).filter((token) => !token.revokedAt);

  return (
    <details className="tokens">
      <summary>Registration tokens ({active.length})</summary>
      <ProblemView error={tokens.error ?? mint.error ?? revoke.error} />
      {mint.data && (
        <p className="secret" role="status">
          New token <strong>{mint.data.name}</strong>, shown only now: <code>{mint.data.token}</code>
        </p>
      )}
      <ul>
        {active.map((token) => (
          <li key={token.id}>
            {token.name}{' '}
            <span className="hint">
              created {token.createdAt ? new Date(token.createdAt).toLocaleString() : ''}
              {token.lastUsedAt && `, last used ${new Date(token.lastUsedAt).toLocaleString()}`}
            </span>{' '}
            <button type="button" className="danger small" onClick={() => revoke.mutate(token.id ?? '')}>
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} className="inline-form">
        <label>
          Token name
          <input value={name} onChange={(event) => setName(event.target.value)} required />
        </label>
        <button type="submit" disabled={mint.isPending || name.trim() === ''}>
          Create token
        </button>
      </form>
    </details>
  );
}
