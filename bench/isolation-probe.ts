/**
 * The prober of `--suite isolation` (bench/isolation.ts), in a child process of its own so that it
 * never shares the server's event loop: one request at a time, `/health` and then a FHIR read, a
 * pause of `gapMs` between pairs, until told to stop; answers every latency it measured.
 */
interface ProbeSpec {
  base: string;
  token: string;
  readPath: string;
  gapMs: number;
}

export interface ProbeRun {
  health: number[];
  read: number[];
  failures: number;
}

let spec: ProbeSpec | undefined;
let stopping = false;
const run: ProbeRun = { health: [], read: [], failures: 0 };

async function timed(url: string, headers: Record<string, string>, into: number[]): Promise<void> {
  const start = performance.now();
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
    await res.arrayBuffer();
    if (res.status !== 200) run.failures++;
  } catch {
    run.failures++;
  }
  into.push(performance.now() - start);
}

async function loop(): Promise<void> {
  while (!stopping && spec) {
    await timed(`${spec.base}/health`, {}, run.health);
    await timed(`${spec.base}${spec.readPath}`, { authorization: `Bearer ${spec.token}` }, run.read);
    await new Promise((resolve) => setTimeout(resolve, spec!.gapMs));
  }
  process.send!(run, () => process.exit(0));
}

process.on('message', (message: { kind: 'start'; spec: ProbeSpec } | { kind: 'stop' }) => {
  if (message.kind === 'start') {
    spec = message.spec;
    void loop();
  } else stopping = true;
});
