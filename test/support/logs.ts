import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@svc/platform';

/** A logger at `info` writing JSON lines to memory, as production would write them to stdout. */
export function memoryLogger(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ logLevel: 'info', role: 'all' }, destination) };
}
