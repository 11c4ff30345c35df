// Relative references in the project's Markdown: links, images and repository paths in code spans, each checked
// against the files of the repository and, with an anchor, against the headings of the page it names. Test side.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** One reference found in a Markdown file: where it is, what it names, and whether it was a link or a code span. */
export interface MarkdownReference {
  /** 1-based line of the reference in its file. */
  line: number;
  /** What it names: a path (relative to the file for a link, to the repository for a code span), `#anchor` or both. */
  target: string;
  /** `link` for `[x](target)`, `![x](target)` and `[x]: target`; `code` for a repository path in backticks. */
  kind: 'link' | 'code';
}

/**
 * Code spans that name a repository path: a top-level folder of the repository, then path characters only (no
 * `*`, `<id>` or `…`, which name a pattern rather than a file), and an optional `#anchor`. `bench/results/` is
 * what a bench run writes, so its files may not exist yet; `.temporal/` likewise.
 */
const REPOSITORY_PATH = /^(?:src|test|docs|scripts|examples|deploy|bench|bin|\.ci)\/[\w./@-]*(?:#[\w-]+)?$/;
const GENERATED = /^bench\/results\//;

/** `[text](target "title")` and `![alt](target)`; the text may hold one level of brackets and line breaks. */
const INLINE_LINK = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;
/** `[label]: target` reference definitions. */
const DEFINITION = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm;
/** An absolute URL (`https:`, `mailto:`): not this checker's business. */
const SCHEME = /^[a-z][a-z\d+.-]*:/i;

/** The text with fenced code blocks blanked (line count kept), so nothing inside them is read as Markdown. */
function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker) {
        fence = marker;
        return '';
      }
      if (fence !== undefined) {
        if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
          fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** Line number (1-based) of a character index. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}

/** Every relative link, image, reference definition and repository path in code spans, outside code blocks. */
export function referencesOf(markdown: string): MarkdownReference[] {
  const prose = withoutFences(markdown);
  const references: (MarkdownReference & { index: number })[] = [];
  // Code spans first; then blank them (same length) so a bracket inside one is not read as a link.
  const codeSpan = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g;
  for (const match of prose.matchAll(codeSpan)) {
    const content = match[2]!.trim();
    if (REPOSITORY_PATH.test(content) && !GENERATED.test(content))
      references.push({
        index: match.index,
        line: lineAt(prose, match.index),
        target: content,
        kind: 'code',
      });
  }
  const text = prose.replace(codeSpan, (span) => span.replace(/[^\n]/g, ' '));
  for (const pattern of [INLINE_LINK, DEFINITION])
    for (const match of text.matchAll(pattern)) {
      const target = match[1]!;
      if (target !== '' && !SCHEME.test(target))
        references.push({ index: match.index, line: lineAt(text, match.index), target, kind: 'link' });
    }
  return references
    .sort((a, b) => a.index - b.index)
    .map(({ line, target, kind }) => ({ line, target, kind }));
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading anchors on its text
    .replace(/<[^>]+>/g, '')
    .replace(/(^|[^\p{L}\p{N}])_+([^_]+?)_+(?=[^\p{L}\p{N}]|$)/gu, '$1$2'); // _emphasis_, not snake_case
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page offers: one per heading (repeats numbered as GitHub numbers them) and any HTML `id`. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = slugOf(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  }
  return anchors;
}

/** Markdown files under a folder of the repository, recursively, as repository-relative paths. */
export function markdownFilesUnder(root: string, folder: string): string[] {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) return markdownFilesUnder(root, relative);
    return entry.name.endsWith('.md') ? [relative] : [];
  });
}

/**
 * What is wrong with the references of `files` (repository-relative), one line each: a path that does not
 * exist or leaves the repository, or an anchor that is no heading of the page it names. Empty when all resolve.
 */
export function brokenReferences(root: string, files: readonly string[]): string[] {
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let anchors = anchorCache.get(file);
    if (!anchors) anchorCache.set(file, (anchors = anchorsOf(readFileSync(file, 'utf8'))));
    return anchors;
  };
  const problems: string[] = [];
  for (const file of files) {
    const absolute = path.join(root, file);
    for (const { line, target, kind } of referencesOf(readFileSync(absolute, 'utf8'))) {
      const where = `${file}:${line} → ${target}`;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const base = kind === 'code' ? root : path.dirname(absolute);
      const resolved = pathPart === '' ? absolute : path.resolve(base, pathPart);
      const inside = path.relative(root, resolved);
      if (inside.startsWith('..') || path.isAbsolute(inside)) {
        problems.push(`${where}: outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (anchor === undefined || !resolved.endsWith('.md') || !statSync(resolved).isFile()) continue;
      if (!anchorsIn(resolved).has(anchor))
        problems.push(`${where}: no heading "${anchor}" in ${path.relative(root, resolved)}`);
    }
  }
  return problems;
}
