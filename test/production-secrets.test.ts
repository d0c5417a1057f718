import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../lib/config';

const ROOT = path.resolve(__dirname, '..');
const REGISTER = path.join(__dirname, 'support/processes/swc-register.js');
const SECRETS = ['JWT_SECRET', 'TRACKING_SECRET', 'FILE_URL_SECRET', 'ID_SECRET', 'DKIM_KEY_SECRET'] as const;
const strong = (name: string) => `${name}-`.padEnd(48, 'k');

/** Runs a real entry point in production mode and returns how it ended. */
function runEntryPoint(entry: string, env: Record<string, string>, args: string[] = []) {
  const inherited = { ...process.env };
  for (const name of SECRETS) delete inherited[name];
  return new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, ['-r', REGISTER, entry, ...args], {
      cwd: ROOT,
      // An unreachable database and Temporal: a process that got past its config would hang or fail later, not here.
      env: { ...inherited, NODE_ENV: 'production', DATABASE_URL: 'postgres://u@127.0.0.1:1/x', TEMPORAL_ADDRESS: '127.0.0.1:1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let [stdout, stderr] = ['', ''];
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

describe('production secrets', () => {
  it.each([
    ['the API', 'api/server.ts', []],
    ['the worker', 'workers/main.ts', []],
    ['the admin CLI', 'scripts/admin.ts', ['tenants', 'list']],
  ])('%s refuses to start without its secrets and names every one, without a stack trace', async (_name, entry, args) => {
    const run = await runEntryPoint(entry, {}, args as string[]);
    expect(run.code).toBe(1);
    for (const name of SECRETS) expect(run.stderr).toContain(`${name}: unset (or the built-in dev value)`);
    expect(run.stderr).toContain('openssl rand -base64 48');
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.stdout).toBe('');
  });

  it('the API refuses a short secret and a built-in dev value given explicitly, and names only those', async () => {
    const run = await runEntryPoint('api/server.ts', {
      JWT_SECRET: 'short-but-over-16-chars',
      TRACKING_SECRET: 'dev-tracking-secret-change-me',
      FILE_URL_SECRET: strong('FILE_URL_SECRET'),
      ID_SECRET: strong('ID_SECRET'),
      DKIM_KEY_SECRET: strong('DKIM_KEY_SECRET'),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('JWT_SECRET: 23 bytes long; production needs at least 32 random bytes');
    expect(run.stderr).toContain('TRACKING_SECRET: unset (or the built-in dev value)');
    expect(run.stderr).not.toContain('FILE_URL_SECRET');
    expect(run.stderr).not.toContain('ID_SECRET');
    expect(run.stderr).not.toContain('DKIM_KEY_SECRET');
  });

  it('the worker refuses live email in production without an https PUBLIC_BASE_URL, and says what to set', async () => {
    const secrets = Object.fromEntries(SECRETS.map((name) => [name, strong(name)]));
    const unset = await runEntryPoint('workers/main.ts', { ...secrets, SMTP_URL: 'smtp://mail.example.com:587', PUBLIC_BASE_URL: '' });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain('PUBLIC_BASE_URL: unset; live email (SMTP_URL is set) needs the https address');
    expect(unset.stderr).not.toMatch(/^\s+at /m);
    const http = await runEntryPoint('api/server.ts', {
      ...secrets,
      SMTP_URL: 'smtp://mail.example.com:587',
      PUBLIC_BASE_URL: 'http://api.example.com',
    });
    expect(http.code).toBe(1);
    expect(http.stderr).toContain('PUBLIC_BASE_URL: "http://api.example.com" is not https');
    for (const name of SECRETS) expect(http.stderr).not.toContain(name);

    const live = { NODE_ENV: 'production', ...secrets, SMTP_URL: 'smtp://mail.example.com:587' };
    expect(loadConfig({ ...live, PUBLIC_BASE_URL: 'https://api.example.com' }).PUBLIC_BASE_URL).toBe('https://api.example.com');
    expect(() => loadConfig({ ...live, PUBLIC_BASE_URL: 'https://' })).toThrow('PUBLIC_BASE_URL');
    // Captured mail (no SMTP_URL) and development need no public address.
    expect(loadConfig({ NODE_ENV: 'production', ...secrets }).SMTP_URL).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'development', SMTP_URL: 'smtp://127.0.0.1:1025' }).PUBLIC_BASE_URL).toBeUndefined();
  });

  it('accepts strong secrets in production, and keeps the dev values outside production', () => {
    const secrets = Object.fromEntries(SECRETS.map((name) => [name, strong(name)]));
    expect(loadConfig({ NODE_ENV: 'production', ...secrets }).JWT_SECRET).toBe(secrets.JWT_SECRET);
    expect(() => loadConfig({ NODE_ENV: 'production', ...secrets, ID_SECRET: 'x'.repeat(31) })).toThrow('ID_SECRET: 31 bytes long');
    expect(loadConfig({ NODE_ENV: 'development' }).JWT_SECRET).toBe('dev-jwt-secret-change-me-please');
  });
});
