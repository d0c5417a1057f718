import { readFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';

/** No Docker engine runs in CI, so the compose file is checked structurally. */
interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

const root = path.join(__dirname, '..');
/** Applies YAML merge keys (`<<: *anchor`), as Docker Compose does; js-yaml leaves them as plain keys. */
function applyMerges(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(applyMerges);
  if (!node || typeof node !== 'object') return node;
  const { '<<': base, ...rest } = node as Record<string, unknown>;
  const merged = { ...(base as object | undefined), ...rest };
  return Object.fromEntries(Object.entries(merged).map(([k, v]) => [k, applyMerges(v)]));
}

const compose = applyMerges(yaml.load(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'))) as {
  services: Record<string, Service>;
};
const s = compose.services;

describe('docker-compose.yml', () => {
  it('runs postgres, temporal, temporal-ui, api and worker', () => {
    expect(Object.keys(s).sort()).toEqual(['api', 'postgres', 'temporal', 'temporal-ui', 'worker']);
  });

  it('gives the stateful services and the api healthchecks, and orders start-up by them', () => {
    for (const name of ['postgres', 'temporal', 'api']) expect(s[name].healthcheck?.test.length).toBeGreaterThan(0);
    expect(s.temporal.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const app of ['api', 'worker']) {
      expect(s[app].depends_on?.postgres).toEqual({ condition: 'service_healthy' });
      expect(s[app].depends_on?.temporal).toEqual({ condition: 'service_healthy' });
    }
  });

  it('persists Temporal in the same PostgreSQL with matching credentials', () => {
    const pg = s.postgres.environment!;
    const t = s.temporal.environment!;
    expect(t.DB).toMatch(/^postgres/);
    expect(t.POSTGRES_SEEDS).toBe('postgres');
    expect(t.POSTGRES_USER).toBe(pg.POSTGRES_USER);
    expect(t.POSTGRES_PWD).toBe(pg.POSTGRES_PASSWORD);
  });

  it('wires api and worker to the postgres and temporal services', () => {
    const pg = s.postgres.environment!;
    for (const app of ['api', 'worker']) {
      const env = s[app].environment!;
      const db = new URL(env.DATABASE_URL);
      expect(db.hostname).toBe('postgres');
      expect(decodeURIComponent(db.username)).toBe(pg.POSTGRES_USER);
      expect(decodeURIComponent(db.password)).toBe(pg.POSTGRES_PASSWORD);
      expect(db.pathname).toBe(`/${pg.POSTGRES_DB}`);
      expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
      expect(s[app].build).toBe('.');
    }
    expect(s['temporal-ui'].environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('publishes the API, Temporal and the UI ports, and runs the compiled entry points that exist', () => {
    expect(s.api.ports).toContain('3000:3000');
    expect(s.temporal.ports).toContain('7233:7233');
    expect(s['temporal-ui'].ports).toContain('8080:8080');
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.scripts.api).toContain('dist/api/server.js');
    expect(pkg.scripts.worker).toContain('dist/workers/main.js');
    expect(s.api.command?.join(' ')).toContain('dist/api/server.js');
    expect(s.api.command?.join(' ')).toContain('dist/scripts/migrate.js');
    expect(s.worker.command).toEqual(['node', 'dist/workers/main.js']);
  });

  it('has a Dockerfile that builds the same dist/ entry points', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/npm ci/);
    expect(dockerfile).toMatch(/npm run build/);
    expect(dockerfile).toMatch(/dist\/api\/server\.js/);
  });
});
