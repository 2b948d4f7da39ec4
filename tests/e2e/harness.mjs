// Shared set-up for the end-to-end tests: our static server and Debian's Chromium.
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';

export const CHROMIUM_ARGS = [
  '--no-sandbox', '--headless', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--no-first-run',
  '--disable-sync',
];

export async function start(routes = {}) {
  const server = await serve(0, routes);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const requests = [];
  const context = await browser.newContext();
  context.on('request', (r) => requests.push(r.url()));
  return {
    origin,
    browser,
    context,
    /** Every URL any page of this context requested, to prove nothing leaked out. */
    requests,
    async page(path) {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e));
      page.on('console', (m) => { if (m.type() === 'error') errors.push(new Error(m.text())); });
      page.errors = errors;
      await page.goto(origin + path);
      return page;
    },
    async close() {
      await browser.close();
      await new Promise((ok) => server.close(ok));
    },
  };
}
