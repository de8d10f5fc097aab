import { existsSync } from 'node:fs';

/** Where Debian's `chromium` package puts the browser (installed by .ci/run); CHROMIUM_PATH overrides. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
  (p): p is string => Boolean(p),
);

/** The browser binary, or null (the browser tests then skip, saying so loudly). */
export function chromiumPath(): string | null {
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/** A headless Chromium driven by puppeteer-core (no browser download: the system's binary). */
export async function launchChromium() {
  const path = chromiumPath();
  if (!path) throw new Error('no chromium binary');
  const { default: puppeteer } = await import('puppeteer-core');
  return puppeteer.launch({
    executablePath: path,
    headless: true,
    // No background traffic: the machine has no network, and the tests check that a page makes no requests.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
