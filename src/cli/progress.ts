import cliProgress from 'cli-progress';

/**
 * A progress bar of `unit` on `stream` (cli-progress): `[#####.....] 512/1024 lines`, redrawn in
 * place on a terminal; elsewhere (a log, a pipe) only its first line and its last.
 */
export function progressBar(stream: NodeJS.WriteStream, unit: string): cliProgress.SingleBar {
  return new cliProgress.SingleBar({
    format: `[{bar}] {value}/{total} ${unit}`,
    barCompleteChar: '#',
    barIncompleteChar: '.',
    barsize: 30,
    stream,
    noTTYOutput: stream.isTTY !== true,
    notTTYSchedule: 3_600_000,
    fps: 10,
    hideCursor: false,
    clearOnComplete: false,
  });
}
