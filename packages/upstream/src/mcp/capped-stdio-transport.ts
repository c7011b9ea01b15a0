import { type ChildProcess, spawn } from "node:child_process";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { UpstreamResponseTooLargeError } from "../fetch-upstream";

export interface CappedStdioParameters {
  command: string;
  args: readonly string[];
  /** Added to the SDK's safe default environment (PATH, HOME...). */
  env: Record<string, string>;
  /** The most the child's output may hold before its next newline (one message). */
  maxMessageBytes: number;
}

/** How long a closing child gets after its stdin ends, then after SIGTERM, before the next step (as the SDK's transport). */
const CLOSE_STEP_MS = 2_000;

/**
 * The MCP stdio client transport (newline-delimited JSON-RPC over a child's stdin/stdout, framed by the SDK's
 * serializeMessage/deserializeMessage, the child's environment the SDK's safe default), with its output
 * bounded in work as well as size. The SDK's StdioClientTransport copies its whole buffer on every chunk
 * until a newline comes: a child that writes 10 MiB without one costs the gateway about a gigabyte of
 * copying. Here chunks are kept as they came and joined once per message; a message past
 * `maxMessageBytes` stops the child and fails the connection (UpstreamResponseTooLargeError).
 */
export class CappedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | null = null;
  /** The output after the last newline, as it came. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly parameters: CappedStdioParameters) {}

  start(): Promise<void> {
    if (this.child) throw new Error("CappedStdioTransport already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.parameters.command, [...this.parameters.args], {
        env: { ...getDefaultEnvironment(), ...this.parameters.env },
        stdio: ["pipe", "pipe", "ignore"],
        shell: false,
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        this.child = null;
        this.pending = [];
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.received(chunk));
      child.stdout?.on("error", (error) => this.onerror?.(error));
    });
  }

  /** Splits what arrived at its newlines: each whole line is one message; the rest waits, within the cap. */
  private received(chunk: Buffer): void {
    if (!this.child) return;
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(10, from);
      if (newline === -1) break;
      const piece = chunk.subarray(from, newline);
      if (this.pendingBytes + piece.byteLength > this.parameters.maxMessageBytes) return this.tooLarge();
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      from = newline + 1;
      this.deliver(line.toString("utf8").replace(/\r$/, ""));
      if (!this.child) return;
    }
    const rest = chunk.subarray(from);
    if (rest.byteLength === 0) return;
    this.pendingBytes += rest.byteLength;
    if (this.pendingBytes > this.parameters.maxMessageBytes) return this.tooLarge();
    this.pending.push(rest);
  }

  private deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      // A line that is not JSON-RPC (a stray log line) is reported and skipped, as the SDK's transport does.
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * Past the cap: nothing more is read (a child writing without end would otherwise be read, and cost the
   * gateway CPU, until it exits), the child is killed at once, and the connection fails.
   */
  private tooLarge(): void {
    const child = this.child;
    this.pending = [];
    this.pendingBytes = 0;
    if (!child) return;
    child.stdout?.destroy();
    child.kill("SIGKILL");
    this.onerror?.(new UpstreamResponseTooLargeError(this.parameters.maxMessageBytes));
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin) return reject(new Error("Not connected"));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  /** Ends the child's stdin, then SIGTERM, then SIGKILL, each after CLOSE_STEP_MS without an exit. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    this.pending = [];
    this.pendingBytes = 0;
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const step = () => Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_STEP_MS).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // Already closed.
    }
    await step();
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      child.kill(signal);
      if (signal === "SIGTERM") await step();
    }
    // onclose comes from the child's "close" event.
  }
}
