import { spawn } from 'node:child_process';
import path from 'node:path';
import { logStream } from '../lib/logger';

const ROOT = path.resolve(__dirname, '..');
const REGISTER = path.join(__dirname, 'support/processes/swc-register.js');

/** Runs node with the TypeScript loader and returns its exit code and stdout; `killOnOutput` kills it (SIGKILL) once it printed something. */
function run(args: string[], env: Record<string, string>, { killOnOutput = false } = {}) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, ['-r', REGISTER, ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      if (killOnOutput) child.kill('SIGKILL');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout });
    });
  });
}

describe('log destination', () => {
  it('is asynchronous and batched: a request does not wait for its log line to be written', () => {
    const stream = logStream as unknown as { sync: boolean; minLength: number };
    expect(stream.sync).toBe(false);
    expect(stream.minLength).toBeGreaterThan(0);
  });

  it('writes a lone line while the process runs on, without waiting for a batch to fill or the process to exit', async () => {
    // An exit would flush the line too: the process kills itself (no exit handlers run) unless it is
    // killed first, as soon as the line arrives.
    const script =
      "const { logger } = require('./lib/logger'); logger.info('lone line'); setTimeout(() => process.kill(process.pid, 'SIGKILL'), 3000);";
    const { signal, stdout } = await run(['-e', script], {}, { killOnOutput: true });
    expect(signal).toBe('SIGKILL');
    expect(stdout).toContain('"msg":"lone line"');
  });

  it('loses no line when the process exits right after logging (buffered lines are flushed on exit)', async () => {
    const script =
      "const { logger } = require('./lib/logger'); for (let i = 0; i < 5000; i++) logger.info({ i }, 'line'); process.exit(3);";
    const { code, stdout } = await run(['-e', script], {});
    expect(code).toBe(3);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { i: number });
    expect(lines).toHaveLength(5000);
    expect(lines[4999].i).toBe(4999);
  });

  it("keeps an entry point's fatal line logged just before process.exit(1)", async () => {
    const { code, stdout } = await run(['api/server.ts'], { DATABASE_URL: '', TEMPORAL_ADDRESS: '' });
    expect(code).toBe(1);
    expect(stdout).toContain('"msg":"api failed to start"');
    expect(stdout).toContain('npm run api needs DATABASE_URL and TEMPORAL_ADDRESS');
  });
});
