// The status page people read, in a real browser: the demo's status resources (examples/demo)
// applied with kubectl to a real API server, the operator giving them ids and the status API
// serving them, both as their real processes; headless Chromium (Debian's chromium, installed by
// scripts/browser/chromium.sh) loads the pages at a phone's and a desktop's width, in light and
// dark, checks what a reader sees, follows the links, and runs axe-core. Screenshots are kept in
// .slipway/screenshots/.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { XMLValidator } from 'fast-xml-parser';
import { parseAllDocuments, stringify } from 'yaml';
import { freePort, stopProcess } from '../../../scripts/processes.ts';
import {
  createNamespace,
  kubectl,
  kubectlApply,
  testKubeConfig,
  testState,
  waitFor,
} from '../../support/cluster.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCREENSHOTS = join(ROOT, '.slipway', 'screenshots');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const HOSTILE = `<script>alert(1)</script> "quotes" & \u05E2\u05D1\u05E8\u05D9\u05EA ${'very long words '.repeat(40)}`;
const DAY = 24 * 3600_000;
const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

let ns: { name: string; remove: () => Promise<void> };
let browser: Browser;
const processes: ChildProcess[] = [];
let base: string;
let output = '';

function start(entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [join(ROOT, entry)], {
    cwd: ROOT,
    env: { ...process.env, KUBECONFIG: testState().controllerKubeconfig, SLIPWAY_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  processes.push(child);
  return child;
}

/** examples/demo/20-status.yaml in the test's namespace. */
function demoObjects(namespace: string): string {
  const demo = readFileSync(join(ROOT, 'examples', 'demo', '20-status.yaml'), 'utf8');
  const objects = parseAllDocuments(demo).map(
    (d) => d.toJS() as { metadata: { name: string; namespace: string }; spec: Record<string, unknown> },
  );
  for (const o of objects) {
    o.metadata.namespace = namespace;
    // The demo's maintenance window is a fixed date; keep it ahead of the clock the page reads.
    if (o.metadata.name === 'kernel-upgrade') {
      o.spec.beginsAt = new Date(Date.now() + 30 * DAY).toISOString();
      o.spec.endsAt = new Date(Date.now() + 30 * DAY + 2 * 3600_000).toISOString();
    }
  }
  return objects.map((o) => stringify(o)).join('---\n');
}

/** A general notice whose subject and update try to become markup. */
const hostileNotice = (namespace: string) => ({
  apiVersion: 'slipway.dev/v1alpha1',
  kind: 'StatusNotice',
  metadata: { name: 'hostile', namespace },
  spec: {
    type: 'general',
    subject: HOSTILE,
    updates: [{ content: `<img src=x onerror=alert(2)> ${HOSTILE}`, at: '2026-11-02T09:00:00Z' }],
  },
});

/** Until the status API lists `count` notices, each with the id the operator gave it. */
const noticesShown = (count: number) =>
  waitFor(
    `the status API to show ${count} notices (process output so far: ${output.slice(-2000)})`,
    async () => {
      const res = await fetch(`${base}/api/v1/notices`).catch(() => undefined);
      const body = res?.ok ? ((await res.json()) as { notices: unknown[] }) : undefined;
      return body && body.notices.length === count;
    },
    60_000,
    250,
  );

async function open(path: string, viewport: keyof typeof VIEWPORTS, scheme: 'light' | 'dark' = 'light') {
  const page = await browser.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // Each test reads what the server answers now, not what an earlier test left in the cache
  // (the pages are public for cacheMaxAgeSeconds).
  await page.setCacheEnabled(false);
  await page.setViewport(VIEWPORTS[viewport]);
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
  const response = await page.goto(`${base}${path}`, { waitUntil: 'load' });
  return { page, response, dialogs };
}

async function screenshot(page: Page, name: string) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** axe-core's serious and critical findings (WCAG 2 A/AA and best practices). */
async function accessibilityProblems(page: Page): Promise<string[]> {
  // Evaluated through DevTools, so the page's policy (no script) does not stand in the way.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations as Array<{
      id: string;
      impact: string;
      nodes: Array<{ target: string[] }>;
    }>;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** What the tests read of an element in the page (the browser's DOM types are not in this program). */
interface Shown {
  innerText: string;
  href: string;
}

/** An expression evaluated in the page. */
const inPage = <T>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;
const SIDEWAYS_OVERFLOW = 'document.documentElement.scrollWidth - window.innerWidth';

const text = (page: Page, selector: string) =>
  page.$eval(selector, (element) => (element as unknown as Shown).innerText);

beforeAll(async () => {
  const executablePath = execFileSync('sh', [join(ROOT, 'scripts', 'browser', 'chromium.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  ns = await createNamespace(testKubeConfig(), 'page');
  await kubectl(['apply', '-f', '-'], demoObjects(ns.name));
  const [port, operatorAdmin, apiAdmin] = [await freePort(), await freePort(), await freePort()];
  base = `http://127.0.0.1:${port}`;
  start('operator/main.ts', {
    SLIPWAY_WATCH_NAMESPACE: ns.name,
    POD_NAMESPACE: ns.name,
    SLIPWAY_LEADER_ELECTION: 'false',
    SLIPWAY_ADMIN_PORT: String(operatorAdmin),
    SLIPWAY_GATEWAY_BASE_URL: 'https://hooks.slipway.test',
  });
  start('status-api/main.ts', {
    SLIPWAY_PORT: String(port),
    SLIPWAY_ADMIN_PORT: String(apiAdmin),
    SLIPWAY_STATUS_NAMESPACE: ns.name,
    SLIPWAY_RATE_LIMIT_RPS: '0',
  });
  // The demo's three notices, each with the id the operator gave it.
  await noticesShown(3);
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    // Root in CI: Chromium's sandbox needs an unprivileged user.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--lang=en-US'],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(processes.map((child) => stopProcess(child)));
  await ns?.remove();
});

describe('the status page in Chromium', () => {
  for (const viewport of ['phone', 'desktop'] as const) {
    it(`shows the demo's degraded state, its components and the open incident on a ${viewport}`, async () => {
      const { page, response, dialogs } = await open('/', viewport);
      expect(response?.status()).toBe(200);
      expect(await page.title()).toBe('Acme Hosting');
      expect(await text(page, '.banner')).toContain('Some systems are experiencing problems');
      const components = await page.$$eval('.component .row', (rows) =>
        rows.map((row) => (row as unknown as Shown).innerText.replace(/\s+/g, ' ').trim()),
      );
      // Platform is a group: it shows its worst part, Databases.
      expect(components).toEqual([
        'Platform ! Degraded',
        'Deployments ✓ Operational',
        'Databases ! Degraded',
        'Dashboard ✓ Operational',
      ]);
      expect(await text(page, 'section[aria-labelledby="incidents"]')).toMatch(
        /Slow queries on shared MySQL[\s\S]*Identified[\s\S]*A noisy neighbour saturates disk I\/O\./,
      );
      expect(await text(page, 'section[aria-labelledby="maintenance-upcoming"]')).toContain(
        'Kernel upgrade on build nodes',
      );
      // Nothing wider than the screen: no sideways scrolling on a phone.
      const overflow = await inPage<number>(page, SIDEWAYS_OVERFLOW);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await accessibilityProblems(page)).toEqual([]);
      expect(dialogs).toEqual([]);
      await screenshot(page, `home-${viewport}`);
      await page.close();
    });
  }

  it("renders the demo's state in Atlassian's embeddable status widget (@statuspage/status-widget), on another site", async () => {
    // Another site embeds the widget and points it at the status API: it reads /api/v2/summary.json.
    const widget = readFileSync(
      createRequire(import.meta.url).resolve('@statuspage/status-widget/dist/index.js'),
      'utf8',
    );
    const site = createServer((req, res) => {
      if (req.url === '/widget.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(widget);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>Shop</title><script src="/widget.js"></script>` +
          `<statuspage-widget src="${base}"></statuspage-widget>` +
          `<statuspage-widget src="${base}" appearance="badge" title="hosting"></statuspage-widget>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const page = await browser.newPage();
    try {
      const asked: string[] = [];
      page.on('request', (request) => asked.push(new URL(request.url()).pathname));
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`, { waitUntil: 'load' });
      const shown = await page.waitForFunction(
        `(() => {
          const [basic, badge] = [...document.querySelectorAll('statuspage-widget')].map((w) => w.shadowRoot);
          const indicator = basic && basic.querySelector('.status-indicator');
          const text = basic && basic.querySelector('.status-text');
          const badgeText = badge && badge.querySelector('.status-indicator');
          return indicator && text && badgeText && text.textContent.trim()
            ? { classes: indicator.className, text: text.textContent.trim(), badge: badgeText.textContent.trim() }
            : null;
        })()`,
        { timeout: 30_000 },
      );
      const got = (await shown.jsonValue()) as { classes: string; text: string; badge: string };
      const v1 = (await (await fetch(`${base}/api/v1/status`)).json()) as { page: { state: string } };
      expect(v1.page.state).toBe('degraded');
      expect(got).toEqual({
        classes: 'status-indicator minor',
        text: 'Partially Degraded Service',
        badge: 'Partially Degraded Service',
      });
      expect(asked).toContain('/api/v2/summary.json');
      await screenshot(page, 'statuspage-widget');
    } finally {
      await page.close();
      site.close();
    }
  });

  it("shows each top-level component's last 90 days as bars, and day by day on its page, reachable with the keyboard", async () => {
    const { page } = await open('/', 'desktop');
    const bars = await page.$$eval('ol.bars', (lists) =>
      lists.map((list) => (list as unknown as { children: { length: number } }).children.length),
    );
    expect(bars).toEqual([90, 90]);
    // The open incident on Databases counts for Platform: its last days are not all green.
    type Day = { className: string; title: string };
    const platform = await page.$$eval('ol.bars', (lists) =>
      [...(lists[0] as unknown as { children: Iterable<Day> }).children].map(
        (d) => `${d.className} | ${d.title}`,
      ),
    );
    expect(platform.at(-1)).toMatch(/^day day-down \| \d+ \w{3,4}: \d+\.\d\d%, .* degraded \(1 notice\)$/);
    expect(await page.$eval('.uptime-total', (p) => (p as unknown as Shown).innerText)).toMatch(
      /^\d+\.\d\d% uptime over the last 90 days · day by day\s*for Platform$/,
    );
    // With the keyboard only: Tab to Platform's "day by day", Enter, then Tab to the incident in its table.
    const tabTo = async (selector: string) => {
      for (let i = 0; i < 120; i += 1) {
        await page.keyboard.press('Tab');
        if (await inPage<boolean>(page, `!!document.activeElement.matches(${JSON.stringify(selector)})`))
          return;
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    await tabTo('.uptime-total a');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(await page.title()).toBe('Platform – Acme Hosting');
    const rows = await page.$$eval('table.uptime-days tbody tr', (trs) =>
      trs.map((tr) => (tr as unknown as Shown).innerText.replace(/\s+/g, ' ').trim()),
    );
    expect(rows).toHaveLength(90);
    // Today's row: the incident's time since midnight (minutes alone just after midnight UTC).
    expect(rows[0]).toMatch(
      /^\d+ \w{3} 20\d\d \d+\.\d\d% (\d+ h( \d+ min)?|\d+ min) — Slow queries on shared MySQL$/,
    );
    await tabTo('table.uptime-days a');
    expect(await inPage<string>(page, 'document.activeElement.innerText')).toBe(
      'Slow queries on shared MySQL',
    );
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await inPage<number>(page, SIDEWAYS_OVERFLOW)).toBeLessThanOrEqual(0);
    await screenshot(page, 'component-uptime');
    await page.close();
  });

  it('follows the incident link to its timeline, newest update first', async () => {
    const { page } = await open('/', 'desktop');
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }),
      page.click('section[aria-labelledby="incidents"] h3 a'),
    ]);
    expect(page.url()).toMatch(/\/notices\/\d+$/);
    expect(await text(page, 'h1')).toBe('Slow queries on shared MySQL');
    expect(await text(page, 'section[aria-labelledby="affected"]')).toMatch(/Databases\s+! Degraded/);
    const updates = await page.$$eval('.timeline li', (items) =>
      items.map((i) => (i as unknown as Shown).innerText),
    );
    expect(updates).toHaveLength(2);
    expect(updates[0]).toMatch(
      /^Identified · 2026-11-22 07:20 UTC[\s\S]*A noisy neighbour saturates disk I\/O\./,
    );
    expect(updates[1]).toMatch(
      /^Investigating · 2026-11-22 07:00 UTC[\s\S]*We are looking into slow queries\./,
    );
    expect(await accessibilityProblems(page)).toEqual([]);
    await screenshot(page, 'notice-desktop');
    await page.close();
  });

  it('reads well in dark mode too', async () => {
    for (const path of ['/', '/history']) {
      const { page } = await open(path, 'phone', 'dark');
      const background = await inPage<string>(page, 'getComputedStyle(document.body).backgroundColor');
      expect(background).toBe('rgb(13, 17, 23)');
      expect(await accessibilityProblems(page)).toEqual([]);
      if (path === '/') await screenshot(page, 'home-phone-dark');
      await page.close();
    }
  });

  it('lists past notices on the history page, accessible at both widths', async () => {
    for (const viewport of ['phone', 'desktop'] as const) {
      const { page, response } = await open('/history', viewport);
      expect(response?.status()).toBe(200);
      expect(await text(page, 'h1')).toBe('Past notices');
      expect(await text(page, '.pages')).toContain('Page 1 of 1');
      expect(await accessibilityProblems(page)).toEqual([]);
      await page.close();
    }
  });

  it('lists upcoming maintenance and announcements on their own page, accessible', async () => {
    const { page, response } = await open('/upcoming', 'phone');
    expect(response?.status()).toBe(200);
    expect(await text(page, 'h1')).toBe('Upcoming maintenance and announcements');
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.close();
  });

  it('links the Atom and RSS feeds, which are well-formed, and renders the badge', async () => {
    const { page } = await open('/', 'desktop');
    const feeds = await page.$$eval('link[rel="alternate"]', (links) =>
      links.map((l) => ({ type: l.getAttribute('type'), href: (l as unknown as Shown).href })),
    );
    expect(feeds.map((f) => f.type)).toEqual(['application/atom+xml', 'application/rss+xml']);
    for (const feed of feeds) {
      const res = await fetch(feed.href);
      expect(res.status).toBe(200);
      const xml = await res.text();
      expect(XMLValidator.validate(xml)).toBe(true);
      expect(xml).toContain('https://status.acme.example/notices/');
    }
    await page.close();
    const badge = await open('/badge.svg', 'desktop');
    expect(badge.response?.headers()['content-type']).toBe('image/svg+xml');
    const size = await badge.page.$eval('svg', (svg) => svg.getBoundingClientRect().width);
    expect(size).toBeGreaterThan(80);
    expect(await badge.page.$eval('svg title', (t) => t.textContent)).toBe('status: degraded');
    await screenshot(badge.page, 'badge');
    await badge.page.close();
  });

  it('shows a hostile notice subject as text: no script runs, nothing leaves the page', async () => {
    await kubectlApply([hostileNotice(ns.name)]);
    await noticesShown(4);
    const { page: home, dialogs } = await open('/', 'phone');
    const link = await home.$$eval('section[aria-labelledby="announcements"] h3 a', (links) =>
      links.map((l) => ({ text: (l as unknown as Shown).innerText, href: (l as unknown as Shown).href })),
    );
    const hostile = link.find((l) => l.text.startsWith('<script>'))!;
    expect(hostile.text).toContain('<script>alert(1)</script> "quotes" & עברית');
    const notice = await open(new URL(hostile.href).pathname, 'phone');
    expect(await text(notice.page, 'h1')).toContain('<script>alert(1)</script>');
    expect(await text(notice.page, '.timeline')).toContain('<img src=x onerror=alert(2)>');
    expect(await inPage<number>(notice.page, 'document.scripts.length + document.images.length')).toBe(0);
    const overflow = await inPage<number>(notice.page, SIDEWAYS_OVERFLOW);
    expect(overflow).toBeLessThanOrEqual(0);
    expect([...dialogs, ...notice.dialogs]).toEqual([]);
    await screenshot(notice.page, 'hostile-notice-phone');
    await Promise.all([home.close(), notice.page.close()]);
  });
});
