/**
 * The documentation's links hold: every relative markdown link of README.md, ARCHITECTURE.md and the
 * pages under docs/ names a file or folder that exists (and, with `#anchor`, a heading of that page),
 * and every page under docs/ can be reached from README.md by following links, so a page that moves
 * or is added is never left where no reader finds it. `node scripts/check-doc-links.ts` prints the
 * problems and exits 1 when there are any.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface DocLink {
  /** The page the link is on, relative to the root, with `/`. */
  file: string;
  line: number;
  text: string;
  target: string;
}

/** README.md, ARCHITECTURE.md and every .md under docs/ (dependency folders skipped), sorted. */
export function docFiles(root: string): string[] {
  const found = ['README.md', 'ARCHITECTURE.md'].filter((f) => existsSync(join(root, f)));
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(path);
      } else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return found.sort();
}

/**
 * A page's text with code blanked out (fenced blocks and inline code spans become spaces), so that
 * code which merely looks like a link is not read as one, while line numbers stay right.
 */
function withoutCode(text: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, blank)
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, blank);
}

/** Every inline link and image of a page: `[text](target)`, `[text](<target> "title")`. */
export function linksOf(file: string, text: string): DocLink[] {
  const prose = withoutCode(text);
  const links: DocLink[] = [];
  for (const m of prose.matchAll(
    /!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+"[^"]*")?\s*\)/g,
  )) {
    const target = m[2].startsWith('<') ? m[2].slice(1, -1) : m[2];
    const line = prose.slice(0, m.index).split('\n').length;
    links.push({ file, line, text: m[1], target });
  }
  return links;
}

/** A link that leaves the repository's files: a URL of any scheme (http:, mailto:, …). */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page defines: its headings' slugs (repeats numbered as GitHub does) and `<a id>`s. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutCode(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    // inline code was blanked (to the same length), so a heading that starts with code was matched
    // after it: the heading's own line, read again from the text (backticks dropped), gives the slug
    const line = text.slice(m.index, m.index + m[0].length);
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/.exec(line)?.[1] ?? m[1];
    const base = slug(heading.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]);
  return anchors;
}

/** Where a relative link leads: the repository path (with `/`) and its anchor, or undefined. */
function resolveLink(root: string, link: DocLink): { path: string; anchor: string } | undefined {
  if (isExternal(link.target)) return undefined;
  const hash = link.target.indexOf('#');
  const pathPart = (hash < 0 ? link.target : link.target.slice(0, hash)).split('?')[0];
  const anchor = hash < 0 ? '' : decodeURIComponent(link.target.slice(hash + 1));
  if (pathPart === '') return { path: link.file, anchor };
  const decoded = decodeURIComponent(pathPart);
  const absolute = decoded.startsWith('/') ? join(root, decoded) : resolve(root, dirname(link.file), decoded);
  return { path: relative(root, absolute).split(sep).join('/'), anchor };
}

/**
 * Every relative link that does not resolve, as `file:line: [text](target): why`. A link to a page
 * with an anchor must name one of that page's headings; same-page anchors (`#x`) are checked too.
 */
export function checkDocLinks(root: string): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  for (const file of docFiles(root)) {
    for (const link of linksOf(file, readFileSync(join(root, file), 'utf8'))) {
      const to = resolveLink(root, link);
      if (!to) continue;
      const where = `${link.file}:${link.line}: [${link.text}](${link.target})`;
      if (to.path === '..' || to.path.startsWith('../')) {
        problems.push(`${where}: leads outside the repository`);
        continue;
      }
      const absolute = join(root, to.path);
      if (!existsSync(absolute)) {
        problems.push(`${where}: ${to.path} does not exist`);
        continue;
      }
      if (to.anchor === '' || !to.path.endsWith('.md') || statSync(absolute).isDirectory()) continue;
      let anchors = anchorCache.get(to.path);
      if (!anchors) {
        anchors = anchorsOf(readFileSync(absolute, 'utf8'));
        anchorCache.set(to.path, anchors);
      }
      if (!anchors.has(to.anchor)) problems.push(`${where}: ${to.path} has no heading #${to.anchor}`);
    }
  }
  return problems;
}

/**
 * The pages under docs/ that cannot be reached from README.md by following links (a link to a folder
 * reaches the folder's README.md, as GitHub shows it).
 */
export function unreachableDocs(root: string): string[] {
  const pages = new Set(docFiles(root));
  const reached = new Set<string>();
  const queue = ['README.md'];
  while (queue.length > 0) {
    const page = queue.shift()!;
    if (reached.has(page) || !existsSync(join(root, page))) continue;
    reached.add(page);
    for (const link of linksOf(page, readFileSync(join(root, page), 'utf8'))) {
      const to = resolveLink(root, link);
      if (!to || to.path.startsWith('../')) continue;
      const absolute = join(root, to.path);
      if (!existsSync(absolute)) continue;
      const target = statSync(absolute).isDirectory() ? `${to.path}/README.md` : to.path;
      if (pages.has(target) && !reached.has(target)) queue.push(target);
    }
  }
  return [...pages].filter((p) => p.startsWith('docs/') && !reached.has(p));
}

if (import.meta.main) {
  const i = process.argv.indexOf('--root');
  const root = i > 0 ? resolve(process.argv[i + 1]) : process.cwd();
  const problems = [
    ...checkDocLinks(root),
    ...unreachableDocs(root).map((p) => `${p}: not reachable from README.md by following links`),
  ];
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`doc links: ${problems.length} problem(s)`);
    process.exit(1);
  }
  console.log(`doc links: ${docFiles(root).length} pages, every link resolves, every page is reachable`);
}
