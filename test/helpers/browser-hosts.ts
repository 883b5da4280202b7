// What the Chromium tests of the host's pages share: Debian's Chromium (never a downloaded build),
// and one kit served three ways (at the root, under an h3 prefix, under an Express prefix that
// strips its mount path), since every page must work under any prefix.
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { H3, toNodeHandler } from "h3";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import type { CaseKit } from "../../core/index.js";
import { createCaseKitApp, mountCaseKit } from "../../server/index.js";

const executablePath = process.env.CASEKIT_CHROMIUM ?? "/usr/bin/chromium";

/** Whether Chromium is here; in CI its absence is an error, elsewhere `label`'s file is skipped with a warning. */
export function chromiumAvailable(label: string): boolean {
  const present = existsSync(executablePath);
  if (!present && process.env.CI) throw new Error(`CI runs ${label} in Chromium, but ${executablePath} is missing (.ci/run installs Debian's chromium)`);
  if (!present) console.warn(`${label}: skipped, no Chromium at ${executablePath} (apt-get install chromium, or set CASEKIT_CHROMIUM)`);
  return present;
}

const launchArgs = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath, args: launchArgs });
}

/** A node:http server on 127.0.0.1 for any request listener. */
export async function serve(listener: http.RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface MountedHosts {
  /** The app itself at the root of its server. */
  root: string;
  /** Under `/security` of an h3 parent (mountCaseKit: the prefix stays in the path). */
  underH3: string;
  /** Under `/soc/casekit` of an Express app, which strips its mount path before casekit sees it. */
  underExpress: string;
  close(): Promise<void>;
}

export async function serveMounted(kit: CaseKit, app: H3): Promise<MountedHosts> {
  const direct = await serve(toNodeHandler(app));
  const parent = new H3().get("/", () => "parent home");
  mountCaseKit(parent, "/security", kit);
  const h3Parent = await serve(toNodeHandler(parent));
  const expressApp = express();
  expressApp.use("/soc/casekit", toNodeHandler(createCaseKitApp(kit)));
  const expressParent = await serve(expressApp);
  return {
    root: direct.origin,
    underH3: `${h3Parent.origin}/security`,
    underExpress: `${expressParent.origin}/soc/casekit`,
    async close() {
      for (const server of [direct, h3Parent, expressParent]) await server.close();
    },
  };
}
