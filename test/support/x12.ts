import { readFileSync } from 'node:fs';

/**
 * ASC X12 test interchanges built from the fixtures (test/fixtures/x12) by string operations only,
 * so that even the ones at the 837P's limits (5 MB, 200,000 segments, 5,000 claims) take
 * milliseconds to make. Every builder keeps the envelope valid: SE01 is recounted.
 */

export function x12Fixture(name: '270-eligibility.x12' | '276-claim-status.x12' | '837p-claims.x12'): string {
  return readFileSync(new URL(`../fixtures/x12/${name}`, import.meta.url), 'utf8');
}

/** The segments of an interchange, one a line, without their terminators. */
export function segmentsOf(text: string): string[] {
  return text
    .trim()
    .split('\n')
    .map((l) => l.replace(/~$/, ''));
}

/** Segments back into an interchange (one a line, `~` terminated), with SE01 counted from ST to SE. */
export function interchangeOf(segments: readonly string[]): string {
  const st = segments.findIndex((s) => s.startsWith('ST*'));
  const se = segments.findIndex((s) => s.startsWith('SE*'));
  const count = se - st + 1;
  return segments.map((s, i) => (i === se ? s.replace(/^SE\*\d+/, `SE*${count}`) : s)).join('~\n') + '~\n';
}

/** `text` with `extra` segments put before the first segment whose line starts with `before` (or instead of it). */
export function withSegments(text: string, before: string, extra: readonly string[], options: { replace?: boolean } = {}): string {
  const segments = segmentsOf(text);
  const at = segments.findIndex((s) => s.startsWith(before));
  if (at === -1) throw new Error(`no segment ${before}`);
  return interchangeOf([...segments.slice(0, at), ...extra, ...segments.slice(options.replace ? at + 1 : at)]);
}

/**
 * A note segment of exactly `length` characters (at least 8), its elements at most 512 characters:
 * a segment every reader here ignores, to fill an interchange to a size or a segment count.
 */
export function filler(length: number): string {
  if (length < 8) throw new Error('a filler segment is at least 8 characters');
  let segment = 'NTE*ADD*';
  let room = length - segment.length;
  while (room > 0) {
    const chunk = Math.min(room, 512);
    segment += 'X'.repeat(chunk);
    room -= chunk;
    if (room > 0) {
      // The next element: never leave a trailing delimiter with nothing after it.
      if (room === 1) {
        segment = segment.slice(0, -1) + '*X';
        room = 0;
      } else {
        segment += '*';
        room -= 1;
      }
    }
  }
  return segment;
}

/** `count` short filler segments. */
export function fillers(count: number): string[] {
  return Array.from({ length: count }, () => 'NTE*ADD*X');
}

/** `text` with fillers before the `before` segment so that it is exactly `bytes` long (ASCII), each filler at most 2,048 characters. */
export function paddedTo(text: string, before: string, bytes: number): string {
  // A filler of n characters costs n + 2 bytes (its terminator and a line break).
  let missing = bytes - withSegments(text, before, []).length;
  if (missing < 20) throw new Error(`cannot pad by ${missing} bytes`);
  const sizes: number[] = [];
  while (missing > 0) {
    let take = Math.min(missing, 2050);
    // Leave the last filler at least 18 characters, so it can give back what SE01 takes below.
    if (missing - take > 0 && missing - take < 20) take -= 20;
    sizes.push(take - 2);
    missing -= take;
  }
  let out = withSegments(text, before, sizes.map(filler));
  // More segments may have given SE01 another digit: the last filler gives it back.
  sizes[sizes.length - 1]! -= out.length - bytes;
  out = withSegments(text, before, sizes.map(filler));
  if (out.length !== bytes) throw new Error(`padded to ${out.length}, not ${bytes}`);
  return out;
}

/**
 * An 837P with `subscribers` subscriber levels (HL 22) of `claimsEach` claims each, every claim
 * with `lines` service lines of 10.00 (CLM02 their sum, or `totalOf(n)`), built from the fixture's
 * first subscriber loop. Control numbers and patient control numbers come from `id`.
 */
export function claims837p(options: { subscribers: number; claimsEach: number; lines?: number; id: number; total?: (lines: number) => string }): string {
  const segments = segmentsOf(x12Fixture('837p-claims.x12')).map((s) => s.replaceAll('000000103', String(options.id).padStart(9, '0')));
  const firstSubscriber = segments.findIndex((s) => s.startsWith('HL*2*'));
  const billingEnd = firstSubscriber;
  const subscriber = segments.slice(firstSubscriber, firstSubscriber + 5); // HL, SBR, NM1*IL, DMG, NM1*PR
  const lines = options.lines ?? 1;
  const total = options.total ?? ((n: number) => (n * 10).toFixed(2));
  const out = segments.slice(0, billingEnd);
  let hl = 1;
  for (let s = 0; s < options.subscribers; s++) {
    hl++;
    out.push(`HL*${hl}*1*22*0`, ...subscriber.slice(1));
    for (let c = 0; c < options.claimsEach; c++) {
      out.push(`CLM*P${options.id}-${s}-${c}*${total(lines)}***11:B:1*Y*A*Y*Y`, 'HI*ABK:J069');
      for (let l = 1; l <= lines; l++) out.push(`LX*${l}`, 'SV1*HC:99213*10*UN*1***1', 'DTP*472*D8*20261101');
    }
  }
  out.push(...segments.slice(segments.findIndex((s) => s.startsWith('SE*'))));
  return interchangeOf(out);
}
