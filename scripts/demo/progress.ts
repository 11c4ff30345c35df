// Terminal output of the demo and `npm start`: step headings, notes, and progress for slow work. Script side.

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Writes to stdout; every line the tour prints goes through here. */
export function say(text = ''): void {
  process.stdout.write(`${text}\n`);
}

export function heading(text: string): void {
  say(`\n▶ ${text}`);
}

/** An indented block, so tables and records sit under their step. */
export function indented(text: string, by = '  '): void {
  say(
    text
      .replace(/\n+$/, '')
      .split('\n')
      .map((line) => (line ? `${by}${line}` : line))
      .join('\n'),
  );
}

export interface ProgressOptions {
  /** Extra words shown beside the elapsed time (a TTY only), asked again every second. */
  readonly status?: () => string | undefined | Promise<string | undefined>;
}

function seconds(milliseconds: number): string {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

/**
 * Awaits `work` while showing that something is happening: a spinner with the elapsed time on a terminal,
 * a dot a second elsewhere. Ends the line with the time it took.
 */
export async function withProgress<T>(
  label: string,
  work: Promise<T>,
  options: ProgressOptions = {},
): Promise<T> {
  const started = Date.now();
  const tty = process.stdout.isTTY === true;
  let frame = 0;
  let status: string | undefined;
  const draw = () => {
    const extra = status ? ` · ${status}` : '';
    process.stdout.write(
      `\r\x1b[2K  ${SPINNER[frame % SPINNER.length]} ${label} ${seconds(Date.now() - started)}${extra}`,
    );
  };
  if (tty) draw();
  else process.stdout.write(`  ${label} …`);
  const spinner = tty ? setInterval(() => ((frame += 1), draw()), 100) : undefined;
  const ticker = setInterval(() => {
    if (!tty) process.stdout.write('.');
    const ask = options.status;
    if (ask)
      void Promise.resolve(ask()).then(
        (value) => (status = value),
        () => undefined,
      );
  }, 1_000);
  const finish = (word: string) => {
    clearInterval(ticker);
    if (spinner) clearInterval(spinner);
    const line = `${label} ${word} (${seconds(Date.now() - started)})`;
    process.stdout.write(tty ? `\r\x1b[2K  ✓ ${line}\n` : ` ${word} (${seconds(Date.now() - started)})\n`);
  };
  try {
    const result = await work;
    finish('done');
    return result;
  } catch (error) {
    finish('failed');
    throw error;
  }
}

/** Sleeps `milliseconds` with progress: for waits the tour makes on purpose (a breaker's cooldown). */
export function waitWithProgress(label: string, milliseconds: number): Promise<void> {
  return withProgress(label, new Promise<void>((resolve) => setTimeout(resolve, milliseconds)));
}
