/**
 * The processes of the gateway bench: `serve --http` replicas, HAProxy in front of them with the
 * deploy configuration as written (docs/deploy/haproxy.cfg), all on 127.0.0.1. Every process is
 * started through one fleet, which ends them all on close, on Ctrl-C (SIGINT), SIGTERM, SIGHUP,
 * and, as a last sweep, kills every living descendant when the bench process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { benchModuleCommand } from './children.js';
import { descendantsOf } from './proc-tree.js';
import { REPO_ROOT } from './paths.js';
import { freePort } from './free-port.js';

export const HAPROXY_CONFIG = path.join(REPO_ROOT, 'docs', 'deploy', 'haproxy.cfg');
const START_LIMIT_MS = 90_000;
const STOP_LIMIT_MS = 10_000;
const STDERR_TAIL = 8_000;

export interface Replica {
  /** `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** `127.0.0.1:<port>`, as HAProxy's server line takes it. */
  address: string;
  /** The port of its `--health` listener, which HAProxy checks (docs/deploy/haproxy.cfg). */
  healthPort: number;
  child: ChildProcess;
}

export interface Balancer {
  /** The gateway's MCP endpoint: `http://127.0.0.1:<port>/mcp`. */
  url: string;
  child: ChildProcess;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function killTree(root: number): void {
  for (const entry of descendantsOf(root)) {
    try {
      process.kill(entry.pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
}

export class Fleet {
  private readonly children: ChildProcess[] = [];
  private closing?: Promise<void>;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`  gateway bench: ${signal}, ending every process it started\n`);
    void this.close().finally(() => process.exit(130));
  };
  private readonly onExit = () => killTree(process.pid);

  constructor(
    /** The bench's HOME: config, manifest index, session keys, gateway file, audit log. */
    private readonly home: string,
    private readonly configFile: string,
  ) {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, this.onSignal);
    process.once('exit', this.onExit);
  }

  private track(child: ChildProcess): ChildProcess {
    this.children.push(child);
    return child;
  }

  /** Spawns the CLI with the bench's HOME and config; stderr kept as a bounded tail. */
  cli(args: string[]): { child: ChildProcess; stderr: () => string } {
    const { command, args: moduleArgs } = benchModuleCommand('serve-cli');
    const child = this.track(
      spawn(command, [...moduleArgs, '--config', this.configFile, ...args], {
        cwd: this.home,
        env: { HOME: this.home, PATH: process.env.PATH ?? '' },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
    let tail = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-STDERR_TAIL);
    });
    return { child, stderr: () => tail };
  }

  /** `mcp-statechart <args>` to its end (bounded), e.g. `index`. */
  async runCli(args: string[]): Promise<void> {
    const { child, stderr } = this.cli(args);
    const timer = setTimeout(() => child.kill('SIGKILL'), START_LIMIT_MS);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (value) => resolve(value)));
    clearTimeout(timer);
    if (code !== 0) throw new Error(`mcp-statechart ${args.join(' ')} exited with ${code}: ${stderr().slice(-1000)}`);
  }

  /** `serve --http 127.0.0.1:0` with a health listener and these serve flags; resolves with its address once it listens. */
  async replica(serveFlags: string[]): Promise<Replica> {
    const healthPort = await freePort();
    const { child, stderr } = this.cli(['serve', '--http', '127.0.0.1:0', '--health', `127.0.0.1:${healthPort}`, ...serveFlags]);
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve --http did not listen within ${START_LIMIT_MS / 1000} s: ${stderr().slice(-1000)}`)), START_LIMIT_MS);
      const watch = () => {
        const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr());
        if (!match) return;
        clearTimeout(timer);
        child.stderr!.off('data', watch);
        resolve(match[1]!);
      };
      child.stderr!.on('data', watch);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve --http exited with ${code}: ${stderr().slice(-1000)}`));
      });
    });
    return { url, address: new URL(url).host, healthPort, child };
  }

  /**
   * HAProxy with docs/deploy/haproxy.cfg as written: its three server lines get the replicas'
   * addresses and health ports (one replica: the same on every line, so round-robin always picks it).
   */
  async balancer(haproxy: string, replicas: Replica[]): Promise<Balancer> {
    const port = await freePort();
    const replicaOf = (index: number) => replicas[index % replicas.length]!;
    const child = this.track(
      spawn(haproxy, ['-db', '-f', HAPROXY_CONFIG], {
        cwd: this.home,
        env: {
          PATH: process.env.PATH ?? '',
          MCP_GATEWAY_BIND: `127.0.0.1:${port}`,
          MCP_REPLICA_1: replicaOf(0).address,
          MCP_REPLICA_2: replicaOf(1).address,
          MCP_REPLICA_3: replicaOf(2).address,
          MCP_REPLICA_1_HEALTH_PORT: String(replicaOf(0).healthPort),
          MCP_REPLICA_2_HEALTH_PORT: String(replicaOf(1).healthPort),
          MCP_REPLICA_3_HEALTH_PORT: String(replicaOf(2).healthPort),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
    let log = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-STDERR_TAIL);
      if (process.env.BENCH_GATEWAY_DEBUG) process.stderr.write(chunk);
    });
    const until = Date.now() + START_LIMIT_MS;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) break;
      if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${log.slice(-1000)}`);
      if (Date.now() > until) throw new Error(`haproxy on 127.0.0.1:${port} did not reach a ready replica within ${START_LIMIT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return { url: `http://127.0.0.1:${port}/mcp`, child };
  }

  /** SIGTERM to every process (serve drains), SIGKILL to what is left after a bounded wait, then to any descendant. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const child of this.children) child.kill('SIGTERM');
      const timer = setTimeout(() => {
        for (const child of this.children) child.kill('SIGKILL');
      }, STOP_LIMIT_MS);
      await Promise.all(this.children.map(exited));
      clearTimeout(timer);
      killTree(process.pid);
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, this.onSignal);
      process.off('exit', this.onExit);
    })();
    return this.closing;
  }
}
