/**
 * The one way this repository builds a pinned Go tool: `go install <pkg>` into a staging folder that
 * replaces the tool's git-ignored folder only when the build succeeded (a build interrupted halfway
 * never looks installed), then a check that the built binary is the one wanted.
 *
 * `ifGo` (what `npm test` runs first): without Go, or when the build fails (no module proxy, say),
 * say so and exit 0, so the tests that need the tool skip rather than everything else failing; the
 * install command itself (and CI) fails instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

export interface GoTool {
  /** what the tool is, for messages: "CometBFT v0.38.26" */
  name: string;
  /** `<module>/cmd/<tool>@v<version>` */
  pkg: string;
  /** where the binary must end up; its folder is the tool's own */
  target: string;
  /** what --if-go says when Go is missing: which tests skip */
  withoutGo: string;
  /** undefined when the binary at `target` is the wanted one, else what is wrong with it */
  check(): string | undefined;
}

export function installGoTool(tool: GoTool, ifGo: boolean): void {
  if (tool.check() === undefined) {
    console.log(`${tool.name} is installed: ${tool.target}`);
    return;
  }
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0) {
    const msg = `Go is needed to build ${tool.name} (not found on PATH)`;
    if (ifGo) {
      console.log(`${msg}; skipping: ${tool.withoutGo}`);
      return;
    }
    console.error(msg);
    process.exit(1);
  }
  const dir = dirname(tool.target);
  const staging = `${dir}.building`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  console.log(`building ${tool.name} with ${go.stdout.trim()}: GOBIN=${staging} go install ${tool.pkg}`);
  try {
    execFileSync('go', ['install', tool.pkg], {
      stdio: 'inherit',
      env: { ...process.env, GOBIN: staging, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
    });
  } catch {
    rmSync(staging, { recursive: true, force: true });
    console.error(`go install ${tool.pkg} failed (see above)`);
    process.exit(ifGo ? 0 : 1);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  const wrong = tool.check();
  if (wrong !== undefined) {
    console.error(`the built ${tool.name}: ${wrong}`);
    process.exit(1);
  }
  console.log(`installed ${tool.name}: ${tool.target}`);
}
