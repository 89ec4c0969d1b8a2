import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';

// The chart as a platform engineer uses it: the real helm renders it and the real
// kubeconform checks every object against the strict JSON schemas of the oldest and the
// newest Kubernetes the chart supports (tools/ci/install-helm-tools.sh installs them).
const CACHE =
  process.env.LANNER_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'lanner');
const HELM = path.join(CACHE, 'bin', 'helm');
const KUBECONFORM = path.join(CACHE, 'bin', 'kubeconform');
const KUBERNETES_VERSIONS = ['1.29.0', '1.37.0'];
const CHART = path.join(__dirname, '..', 'lanner');
const PRODUCTION_VALUES = path.join(__dirname, '..', 'examples', 'production-values.yaml');
const RELEASE = 'lanner';
const NAMESPACE = 'lanner';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], input?: string): Run {
  if (!fs.existsSync(command)) throw new Error(`${command} is missing: run tools/ci/install-helm-tools.sh`);
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    input,
    env: { ...process.env, HELM_CACHE_HOME: scratch, HELM_CONFIG_HOME: scratch },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let scratch: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lanner-chart-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function valuesFile(text: string): string {
  const file = path.join(scratch, `values-${Math.random().toString(36).slice(2)}.yaml`);
  fs.writeFileSync(file, text);
  return file;
}

function template(valueFiles: string[] = [], extraArgs: string[] = []): Run {
  return run(HELM, [
    'template',
    RELEASE,
    CHART,
    '--namespace',
    NAMESPACE,
    ...valueFiles.flatMap((file) => ['-f', file]),
    ...extraArgs,
  ]);
}

function rendered(valueFiles: string[] = [], extraArgs: string[] = []): string {
  const result = template(valueFiles, extraArgs);
  if (result.status !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return result.stdout;
}

// Loosely typed on purpose: the objects are Kubernetes manifests, checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = any;

function manifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS())
    .filter((object) => object && object.kind);
}

const find = (objects: Manifest[], kind: string, name: string): Manifest => {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendered chart`);
  return found;
};

function kubeconform(version: string, text: string): Run {
  const schemas = path.join(CACHE, 'k8s-schemas', `v${version}`, '{{.ResourceKind}}{{.KindSuffix}}.json');
  // ServiceMonitor is the Prometheus Operator's CRD: no Kubernetes schema has it, so it
  // is skipped here and its fields are checked by the ServiceMonitor test.
  return run(
    KUBECONFORM,
    ['-strict', '-summary', '-output', 'text', '-schema-location', schemas, '-skip', 'ServiceMonitor', '-'],
    text,
  );
}

const container = (deployment: Manifest) => deployment.spec.template.spec.containers[0];
const envOf = (deployment: Manifest): Record<string, Manifest> =>
  Object.fromEntries(
    container(deployment).env.map((variable: Manifest) => [variable.name, variable.value ?? variable.valueFrom]),
  );

describe('the Helm chart', () => {
  it.each([
    ['the default values', [] as string[]],
    ['the production values', [PRODUCTION_VALUES]],
  ])('passes helm lint --strict with %s', (_name, files) => {
    const result = run(HELM, ['lint', '--strict', CHART, ...files.flatMap((file) => ['-f', file])]);

    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
    expect(result.status).toBe(0);
  });

  describe.each(KUBERNETES_VERSIONS)('against the Kubernetes %s schemas', (version) => {
    it.each([
      ['the default values', [] as string[], 13],
      ['the production values', [PRODUCTION_VALUES], 25],
    ])('renders %s into valid objects only', (_name, files, expectedValid) => {
      const text = rendered(files);
      const result = kubeconform(version, text);

      expect(result.stderr).toBe('');
      const summary = /(\d+) resources found .* Valid: (\d+), Invalid: (\d+), Errors: (\d+)/.exec(result.stdout);
      expect(summary).not.toBeNull();
      const [, found, valid, invalid, errors] = (summary as RegExpExecArray).map(Number);
      expect({ invalid, errors }).toEqual({ invalid: 0, errors: 0 });
      expect(valid).toBe(expectedValid);
      expect(found - valid).toBe(files.length === 0 ? 0 : 1); // the ServiceMonitor
      expect(result.status).toBe(0);
    });

    it('would report a misspelt Kubernetes field (the schemas are strict)', () => {
      const broken = rendered().replace('terminationGracePeriodSeconds:', 'terminationGracePeriodSecond:');

      const result = kubeconform(version, broken);

      expect(result.status).toBe(1);
      expect(result.stdout).toContain("additional properties 'terminationGracePeriodSecond' not allowed");
    });
  });

  describe('values.schema.json', () => {
    it('fails helm template and helm lint on a misspelt key, naming its path', () => {
      const typo = valuesFile('roles:\n  worker:\n    replicaz: 3\n');

      const templated = template([typo]);
      const linted = run(HELM, ['lint', '--strict', CHART, '-f', typo]);

      expect(templated.status).toBe(1);
      expect(templated.stderr).toContain("at '/roles/worker': additional properties 'replicaz' not allowed");
      expect(linted.status).toBe(1);
      expect(linted.stdout).toContain("additional properties 'replicaz' not allowed");
    });

    it('fails on a value of the wrong kind, naming its path', () => {
      const wrong = valuesFile('grpcTls:\n  clientAuth: ALWAYS\nkafka:\n  brokers: "kafka without port"\n');

      const result = template([wrong]);

      expect(result.status).toBe(1);
      expect(result.stderr).toContain("at '/grpcTls/clientAuth'");
      expect(result.stderr).toContain("at '/kafka/brokers'");
    });
  });

  describe('with the production values', () => {
    let objects: Manifest[];
    beforeAll(() => {
      objects = manifests(rendered([PRODUCTION_VALUES]));
    });
    const deployment = (role: string) => find(objects, 'Deployment', `${RELEASE}-${role}`);
    const ROLES = ['api', 'executor', 'controller', 'scheduler', 'indexer', 'worker'];

    it('gives the worker the common extraEnv, its own, and a registration token from a Secret', () => {
      const env = envOf(deployment('worker'));

      expect(env.LANNER_READY_TIMEOUT_MS).toBe('3000');
      expect(env.LANNER_WORKER_DNS_REFRESH_S).toBe('15');
      expect(env.LANNER_WORKER_REGISTRATION_TOKEN).toEqual({
        secretKeyRef: { name: 'lanner-worker-registration', key: 'LANNER_WORKER_REGISTRATION_TOKEN' },
      });
      expect(env.DATABASE_URL).toBeUndefined();
    });

    it("gives the api the bootstrap admin token and the user login's signing key from Secrets, and no other role the latter", () => {
      const env = envOf(deployment('api'));
      expect(env.LANNER_ADMIN_TOKEN).toEqual({ secretKeyRef: { name: 'lanner-admin-token', key: 'LANNER_ADMIN_TOKEN' } });
      expect(env.LANNER_USER_JWT_SIGNING_KEY).toEqual({
        secretKeyRef: { name: 'lanner-user-jwt', key: 'LANNER_USER_JWT_SIGNING_KEY' },
      });
      for (const role of ROLES.filter((name) => name !== 'api'))
        expect([role, envOf(deployment(role)).LANNER_USER_JWT_SIGNING_KEY]).toEqual([role, undefined]);
    });

    it('passes the common extraEnv to every role and to the migration Job', () => {
      for (const role of ROLES) expect([role, envOf(deployment(role)).LANNER_READY_TIMEOUT_MS]).toEqual([role, '3000']);
      const job = find(objects, 'Job', `${RELEASE}-migrate`);
      expect(envOf(job).LANNER_READY_TIMEOUT_MS).toBe('3000');
    });

    it('lets workers find every controller by DNS through a headless Service', () => {
      const headless = find(objects, 'Service', `${RELEASE}-controller-headless`);
      const env = envOf(deployment('worker'));

      expect(headless.spec.clusterIP).toBe('None');
      expect(headless.spec.selector).toEqual(deployment('controller').spec.selector.matchLabels);
      expect(headless.spec.ports).toEqual([{ name: 'grpc', port: 9090, targetPort: 'grpc' }]);
      expect(env.LANNER_WORKER_DISCOVERY).toBe('DNS');
      expect(env.LANNER_WORKER_CONTROLLERS).toBe(`${RELEASE}-controller-headless.${NAMESPACE}.svc:9090`);
    });

    it('serves mTLS on the controllers and dials with a client certificate from the workers, both from Secrets', () => {
      const controller = deployment('controller');
      const worker = deployment('worker');

      expect(envOf(controller)).toMatchObject({
        LANNER_GRPC_TLS_CERT: '/etc/lanner/tls/tls.crt',
        LANNER_GRPC_TLS_KEY: '/etc/lanner/tls/tls.key',
        LANNER_GRPC_TLS_CA: '/etc/lanner/tls/ca.crt',
        LANNER_GRPC_TLS_CLIENT_AUTH: 'REQUIRE',
      });
      expect(envOf(worker)).toMatchObject({
        LANNER_WORKER_TLS: 'true',
        LANNER_WORKER_TLS_CA: '/etc/lanner/tls/ca.crt',
        LANNER_WORKER_TLS_CERT: '/etc/lanner/tls/tls.crt',
        LANNER_WORKER_TLS_KEY: '/etc/lanner/tls/tls.key',
        LANNER_WORKER_TLS_AUTHORITY: 'lanner-controller.lanner.svc',
      });
      const secretOf = (d: Manifest) =>
        d.spec.template.spec.volumes.find((v: Manifest) => v.name === 'grpc-tls').secret.secretName;
      expect(secretOf(controller)).toBe('lanner-controller-tls');
      expect(secretOf(worker)).toBe('lanner-worker-tls');
      expect(container(controller).volumeMounts).toContainEqual({
        name: 'grpc-tls',
        mountPath: '/etc/lanner/tls',
        readOnly: true,
      });
    });

    it('runs every role as a non-root user with a read-only root, its resources, a startup probe and topology spread', () => {
      for (const role of ROLES) {
        const pod = deployment(role).spec.template.spec;
        expect([role, pod.serviceAccountName, pod.securityContext.runAsNonRoot]).toEqual([role, 'lanner', true]);
        expect(container(deployment(role)).securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
        });
        expect(container(deployment(role)).startupProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
        expect(container(deployment(role)).resources.requests).toBeDefined();
        expect(pod.topologySpreadConstraints.map((c: Manifest) => c.topologyKey)).toEqual([
          'topology.kubernetes.io/zone',
          'kubernetes.io/hostname',
        ]);
        expect(pod.topologySpreadConstraints[0].labelSelector.matchLabels['app.kubernetes.io/component']).toBe(role);
      }
      expect(container(deployment('controller')).resources.requests).toEqual({ cpu: '1', memory: '1Gi' });
      expect(container(deployment('worker')).resources.requests).toEqual({ cpu: '2', memory: '2Gi' });
      expect(find(objects, 'ServiceAccount', 'lanner').automountServiceAccountToken).toBe(false);
    });

    it('scales api, executor, controller and worker with an HPA, which then owns their replicas', () => {
      const scaled = objects
        .filter((object) => object.kind === 'HorizontalPodAutoscaler')
        .map((hpa) => hpa.spec.scaleTargetRef.name);

      expect(scaled.sort()).toEqual(['api', 'controller', 'executor', 'worker'].map((role) => `${RELEASE}-${role}`));
      expect(deployment('api').spec.replicas).toBeUndefined();
      expect(deployment('scheduler').spec.replicas).toBe(2);
    });

    it('guards every role with a PodDisruptionBudget selecting its pods', () => {
      for (const role of ROLES) {
        const budget = find(objects, 'PodDisruptionBudget', `${RELEASE}-${role}`);
        expect(budget.spec.selector.matchLabels).toEqual(deployment(role).spec.selector.matchLabels);
      }
    });

    it('has Prometheus scrape /metrics of every role through a ServiceMonitor', () => {
      const monitor = find(objects, 'ServiceMonitor', RELEASE);
      const selects = (labels: Record<string, string>) =>
        Object.entries(monitor.spec.selector.matchLabels).every(([key, value]) => labels[key] === value);
      const scraped = objects.filter((object) => object.kind === 'Service' && selects(object.metadata.labels));

      expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(monitor.metadata.labels.release).toBe('prometheus');
      expect(monitor.spec.endpoints).toEqual([{ port: 'http', path: '/metrics', interval: '15s', scrapeTimeout: '5s' }]);
      expect(scraped.map((service) => service.metadata.labels['app.kubernetes.io/component']).sort()).toEqual([...ROLES].sort());
      for (const service of scraped)
        expect(service.spec.ports).toContainEqual(expect.objectContaining({ name: 'http', targetPort: 'http' }));
    });
  });

  describe('the migration Job', () => {
    it('keeps one name across revisions, has a deadline and is cleaned up after it ends', () => {
      const first = find(manifests(rendered()), 'Job', `${RELEASE}-migrate`);
      const upgrade = find(manifests(rendered([], ['--is-upgrade'])), 'Job', `${RELEASE}-migrate`);

      expect(upgrade.metadata.name).toBe(first.metadata.name);
      expect(first.metadata.annotations['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      expect(first.metadata.annotations['helm.sh/hook-delete-policy']).toBe('before-hook-creation');
      expect(first.spec.ttlSecondsAfterFinished).toBe(3600);
      expect(first.spec.activeDeadlineSeconds).toBe(600);
      expect(container(first).args).toEqual(['db', 'migrate']);
    });
  });

  describe('quick-start Secrets', () => {
    it('are generated before the migration Job when asked for, with a 48-character admin token', () => {
      const values = valuesFile(
        'quickstartSecrets:\n  create: true\n  databaseUrl: postgresql://lanner:pw@postgres:5432/lanner\n',
      );
      const objects = manifests(rendered([values]));

      const admin = find(objects, 'Secret', 'lanner-admin-token');
      const signing = find(objects, 'Secret', 'lanner-worker-jwt');
      const database = find(objects, 'Secret', 'lanner-database');
      expect(Buffer.from(admin.data.LANNER_ADMIN_TOKEN, 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
      expect(Buffer.from(signing.data.LANNER_JWT_SIGNING_KEY, 'base64').length).toBe(48);
      const userSigning = find(objects, 'Secret', 'lanner-user-jwt');
      expect(Buffer.from(userSigning.data.LANNER_USER_JWT_SIGNING_KEY, 'base64').length).toBe(48);
      expect(database.stringData.DATABASE_URL).toBe('postgresql://lanner:pw@postgres:5432/lanner');
      expect(Number(admin.metadata.annotations['helm.sh/hook-weight'])).toBeLessThan(
        Number(find(objects, 'Job', `${RELEASE}-migrate`).metadata.annotations['helm.sh/hook-weight']),
      );
    });

    it('are refused without a database URL, saying which value to set', () => {
      const values = valuesFile('quickstartSecrets:\n  create: true\n');

      const result = template([values]);

      expect(result.status).toBe(1);
      expect(result.stderr).toContain('quickstartSecrets.databaseUrl: set the PostgreSQL URL');
    });

    it('are not part of a production install', () => {
      expect(manifests(rendered([PRODUCTION_VALUES])).filter((object) => object.kind === 'Secret')).toEqual([]);
    });
  });
});
