/**
 * `gateway cluster` (`npm run cluster`): a sharded cluster on this machine, in the foreground
 * (docs/scaling.md, "A local cluster"). It starts the project's Kafka broker (scripts/kafka/kafka.sh,
 * or uses GATEWAY_KAFKA_BROKERS when set), GATEWAY_CLUSTER_SHARDS cores (default 3), two workers
 * that serve every shard, and a front on GATEWAY_PORT, each a `gateway serve` process with the
 * GATEWAY_* environment of this one. Everything but the front listens on a free port of its own; a
 * core keeps its store in <GATEWAY_DATA_DIR>/shard-<i>. Each child runs in its own process group,
 * and SIGTERM or SIGINT stops them all (SIGKILL for what is left after a grace period), the broker
 * too when this command started it. The processes' log lines come out on stdout, each JSON line
 * with `"process"` naming its process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/config.js';

export const CLUSTER_USAGE = `  gateway cluster                           run a local sharded cluster: Kafka, GATEWAY_CLUSTER_SHARDS cores (3), two workers, a front on GATEWAY_PORT`;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'gateway.js');
const KAFKA_SCRIPT = path.join(ROOT, 'scripts', 'kafka', 'kafka.sh');
/** The daemon's V8 flags, as `npm start` passes them (docs/operations.md, "Memory"). */
const NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
const WORKERS = 2;
const DEFAULT_SHARDS = 3;
const DEFAULT_SLOTS = 64;
const START_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 15_000;

interface Member {
  name: string;
  role: 'core' | 'worker' | 'front';
  child: ChildProcess;
  /** Resolves with its port once its /healthz answers 200; rejects when it exits first or is too slow. */
  ready: Promise<number>;
  exited: Promise<void>;
}

/** The cluster's layout, printed as the `cluster ready` line: what a test or an operator reaches. */
export interface ClusterLayout {
  front: { url: string; pid: number };
  cores: { shard: number; url: string; pid: number; data_dir: string }[];
  workers: { url: string; pid: number }[];
  kafka_brokers: string;
}

export async function clusterCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  parseArgs({ args, options: {} });
  const out = (record: Record<string, unknown>) =>
    process.stdout.write(`${JSON.stringify({ time: Date.now(), process: 'cluster', ...record })}\n`);
  const settings: NodeJS.ProcessEnv = {
    ...env,
    GATEWAY_SHARD_SLOTS: env.GATEWAY_SHARD_SLOTS?.trim() || String(DEFAULT_SLOTS),
    GATEWAY_CLUSTER_SHARDS: env.GATEWAY_CLUSTER_SHARDS?.trim() || String(DEFAULT_SHARDS),
  };
  // The whole environment is checked once, here, before anything starts; each child checks its own again.
  const config = loadConfig(settings);
  const shards = config.clusterShards;

  const members: Member[] = [];
  let kafkaLease: string | null = null;
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    // The front first (no new requests), then the workers, then the cores: each group its own, all of it.
    for (const role of ['front', 'worker', 'core'] as const) {
      const group = members.filter((m) => m.role === role);
      for (const member of group) signalGroup(member.child, 'SIGTERM');
      await Promise.all(group.map((member) => Promise.race([member.exited, sleep(STOP_GRACE_MS)])));
      for (const member of group) signalGroup(member.child, 'SIGKILL');
      await Promise.all(group.map((member) => member.exited));
    }
    if (kafkaLease !== null)
      spawnSync('bash', [KAFKA_SCRIPT, 'release'], {
        env: { ...env, KAFKA_LEASE: kafkaLease },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
  };
  // Whatever ends this process, its children do not outlive it.
  const killAll = () => members.forEach((member) => signalGroup(member.child, 'SIGKILL'));
  process.once('exit', killAll);
  let signalled: (signal: NodeJS.Signals) => void = () => {};
  const stopped = new Promise<NodeJS.Signals>((resolve) => (signalled = resolve));
  process.once('SIGINT', () => signalled('SIGINT'));
  process.once('SIGTERM', () => signalled('SIGTERM'));

  try {
    let brokers = config.kafkaBrokers?.join(',') ?? null;
    if (brokers === null) {
      kafkaLease = String(process.pid);
      const started = spawnSync('bash', [KAFKA_SCRIPT, 'start'], {
        env: { ...env, KAFKA_LEASE: kafkaLease },
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
      });
      if (started.status !== 0)
        throw new Error(
          `the Kafka broker did not start (bash ${KAFKA_SCRIPT} start exited ${started.status ?? started.signal})`,
        );
      brokers = `127.0.0.1:${env.KAFKA_PORT?.trim() || '19092'}`;
      out({ msg: 'kafka broker ready', brokers, state: started.stdout.trim() });
    }

    // The front's address is the public one of every process (attachment URLs, callback addresses).
    const frontPort = config.port === 0 ? await freePort(config.host) : config.port;
    const localHost = localHostOf(config.host);
    const publicUrl = env.GATEWAY_PUBLIC_URL?.trim() || `http://${localHost}:${frontPort}`;
    const common = { ...settings, GATEWAY_KAFKA_BROKERS: brokers, GATEWAY_PUBLIC_URL: publicUrl };

    // Free ports picked now: each process must know the others' addresses before it starts.
    const corePorts: number[] = [];
    for (let shard = 0; shard < shards; shard++) corePorts.push(await freePort(localHost));
    const cores = Array.from({ length: shards }, (_, shard) => {
      const dataDir = path.join(config.dataDir, `shard-${shard}`);
      fs.mkdirSync(dataDir, { recursive: true });
      const port = corePorts[shard]!;
      const member = start(`core-${shard}`, 'core', port, {
        ...common,
        GATEWAY_SHARD: String(shard),
        // The front is one more proxy before a core: the throttles count the client's address, not the front's.
        GATEWAY_TRUST_PROXY: String(config.trustProxy + 1),
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_PORT: String(port),
        GATEWAY_HOST: localHost,
        GATEWAY_SHARD_URLS: undefined,
        GATEWAY_WORKER_PORT: undefined,
      });
      members.push(member);
      return { member, dataDir };
    });
    await Promise.all(cores.map(({ member }) => member.ready));
    const shardUrls = corePorts.map((port) => `http://${localHost}:${port}`);

    const workerPorts: number[] = [];
    for (let i = 0; i < WORKERS; i++) workerPorts.push(await freePort(localHost));
    const workers = Array.from({ length: WORKERS }, (_, i) => {
      const dataDir = path.join(config.dataDir, `worker-${i}`);
      fs.mkdirSync(dataDir, { recursive: true });
      const member = start(`worker-${i}`, 'worker', workerPorts[i]!, {
        ...common,
        GATEWAY_SHARD_URLS: shardUrls.join(','),
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_WORKER_PORT: String(workerPorts[i]),
        GATEWAY_HOST: localHost,
        GATEWAY_SHARD: undefined,
      });
      members.push(member);
      return member;
    });
    await Promise.all(workers.map((member) => member.ready));

    const front = start('front', 'front', frontPort, {
      ...common,
      GATEWAY_SHARD_URLS: shardUrls.join(','),
      // The pipeline page's workers.
      GATEWAY_WORKER_URLS: workerPorts.map((port) => `http://${localHost}:${port}`).join(','),
      GATEWAY_PORT: String(frontPort),
      GATEWAY_SHARD: undefined,
    });
    members.push(front);
    await front.ready;

    const layout: ClusterLayout = {
      front: { url: `http://${localHost}:${frontPort}`, pid: front.child.pid! },
      cores: cores.map(({ member, dataDir }, shard) => ({
        shard,
        url: shardUrls[shard]!,
        pid: member.child.pid!,
        data_dir: dataDir,
      })),
      workers: workers.map((member, i) => ({ url: `http://${localHost}:${workerPorts[i]}`, pid: member.child.pid! })),
      kafka_brokers: brokers,
    };
    out({ msg: 'cluster ready', ...layout });

    const signal = await stopped;
    out({ msg: 'stopping the cluster', signal });
    await stopAll();
    out({ msg: 'cluster stopped' });
    return 0;
  } catch (error) {
    process.stderr.write(`gateway cluster: ${error instanceof Error ? error.message : String(error)}\n`);
    await stopAll();
    return 1;
  } finally {
    process.off('exit', killAll);
  }

  function start(name: string, role: Member['role'], port: number, childEnv: NodeJS.ProcessEnv): Member {
    const defined: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(childEnv).filter(([, value]) => value !== undefined),
    );
    const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'serve', '--role', role], {
      env: defined,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    forwardLines(child, name);
    // Ready when its /healthz answers 200 (whatever GATEWAY_LOG_LEVEL lets it print).
    const ready = (async () => {
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
        if (Date.now() > deadline) throw new Error(`${name} did not start within ${START_TIMEOUT_MS / 1000} s`);
        try {
          const response = await fetch(`http://${localHostOf(config.host)}:${port}/healthz`, {
            signal: AbortSignal.timeout(2_000),
          });
          await response.arrayBuffer();
          if (response.status === 200) return port;
        } catch {
          // Not listening yet.
        }
        await sleep(200);
      }
    })();
    ready.catch(() => {});
    child.once('exit', (code, signal) => {
      if (!stopping) out({ level: 40, msg: `${name} exited`, code, signal });
    });
    return { name, role, child, ready, exited };
  }
}

function localHostOf(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

/** Writes each line of the child's output to stdout, a JSON line with `"process":"<name>"` added. */
function forwardLines(child: ChildProcess, name: string): void {
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const tagged = line.startsWith('{')
          ? `{"process":${JSON.stringify(name)},${line.slice(1)}`
          : `[${name}] ${line}`;
        process.stdout.write(`${tagged}\n`);
      }
    });
  }
}

/** Signals the child's whole process group (it was started detached, as its group's leader). */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Gone already.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A port nothing listens on now, for the front when GATEWAY_PORT is 0 (every process must know it first). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
