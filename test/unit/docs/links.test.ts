// The README and docs/ link to files and headings that exist: every relative link, image and repository path in a
// code span resolves, and every `#anchor` names a heading of the page it points at. Pure file reads.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  anchorsOf,
  brokenReferences,
  markdownFilesUnder,
  referencesOf,
  slugOf,
} from '../../support/markdown-links';

const root = path.join(__dirname, '../../..');

test('every relative link and file reference in README.md and docs/ resolves', () => {
  const files = ['README.md', ...markdownFilesUnder(root, 'docs')];
  // The pages this checks, so a docs/ folder that went missing cannot pass by checking nothing.
  expect(files).toEqual(
    expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/decisions/README.md']),
  );
  expect(brokenReferences(root, files)).toEqual([]);
});

test('a missing file, a missing heading, a path outside the repository and a stale code path are found', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'switchyard-links-'));
  try {
    mkdirSync(path.join(folder, 'docs'));
    mkdirSync(path.join(folder, 'src'));
    writeFileSync(path.join(folder, 'src', 'here.ts'), '');
    writeFileSync(path.join(folder, 'docs', 'page.md'), '# A page\n\n## Its `first` part: setup\n');
    writeFileSync(
      path.join(folder, 'README.md'),
      [
        '# Readme',
        '',
        'Good: [page](docs/page.md), [part](docs/page.md#its-first-part-setup), [self](#readme), `src/here.ts`,',
        '![picture](docs/page.md) and [the web](https://example.com/nowhere.md).',
        '',
        'Bad: [gone](docs/gone.md), [no part](docs/page.md#second-part), [no self](#nothing),',
        '[escape](../outside.md), `src/gone.ts`.',
        '',
        '```sh',
        'cat [not a link](docs/inside-code.md) `src/inside-code.ts`',
        '```',
      ].join('\n'),
    );
    expect(brokenReferences(folder, ['README.md', 'docs/page.md'])).toEqual([
      'README.md:6 → docs/gone.md: no such file',
      'README.md:6 → docs/page.md#second-part: no heading "second-part" in docs/page.md',
      'README.md:6 → #nothing: no heading "nothing" in README.md',
      'README.md:7 → ../outside.md: outside the repository',
      'README.md:7 → src/gone.ts: no such file',
    ]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('anchors are GitHub’s: punctuation dropped, spaces as hyphens, repeats numbered', () => {
  expect(slugOf('The gateway: any SDK, any language (`switchyard serve`)')).toBe(
    'the-gateway-any-sdk-any-language-switchyard-serve',
  );
  expect(slugOf('Streaming: failover before the first piece only')).toBe(
    'streaming-failover-before-the-first-piece-only',
  );
  expect(slugOf('0001 — Ledger reservations')).toBe('0001--ledger-reservations');
  expect(slugOf('[Linked](x.md) and _emphasised_ snake_case')).toBe('linked-and-emphasised-snake_case');
  expect([...anchorsOf('# Setup\n\n## Setup\n\n```\n# not a heading\n```\n<a id="custom"></a>\n')]).toEqual([
    'setup',
    'setup-1',
    'custom',
  ]);
});

test('links spread over two lines and reference definitions are read; absolute URLs are not', () => {
  const references = referencesOf(
    'See [decision record\n0002](docs/decisions/0002.md) and [ref].\n\n[ref]: docs/ref.md\n[web]: https://x.org\n',
  );
  expect(references).toEqual([
    { line: 1, target: 'docs/decisions/0002.md', kind: 'link' },
    { line: 4, target: 'docs/ref.md', kind: 'link' },
  ]);
});
