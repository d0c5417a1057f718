import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../lib/paths';

/** Debian's Chromium (apt-get install chromium); playwright-core never downloads a browser. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const INSTALL_HINT =
  "install it with 'DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium' (bash .ci/run does)";

// Without the networking flags Chromium keeps calling Google's hosts, which this network refuses.
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches headless Chromium with a fresh, temporary profile (playwright's launch() creates a new
 * user-data-dir per browser and deletes it on close). A missing or broken browser fails the tests
 * with a message saying what to do; they never skip.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Dashboard tests need Chromium at ${CHROMIUM_PATH}, which does not exist: ${INSTALL_HINT}, or set CHROMIUM_PATH.`);
  }
  try {
    return await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS, timeout: 60_000 });
  } catch (err) {
    throw new Error(`Chromium at ${CHROMIUM_PATH} did not start (${(err as Error).message}); reinstall it: ${INSTALL_HINT}.`, {
      cause: err,
    });
  }
}

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts', 'dashboard');

/** A full-page screenshot under test-artifacts/dashboard/ (git-ignored), for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
