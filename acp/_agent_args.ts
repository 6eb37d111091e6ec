/**
 * Private: the parsed command line of the agent binary, shared by `main.ts` (which parses it)
 * and `_agent_setup.ts` (which reads the configuration it names).
 *
 * @module
 */
import type { LogLevel } from "../core/mod.ts";

/** The parsed command line of the agent binary. */
export interface AgentArgs {
  /** `--config <path>`. */
  readonly config?: string;
  /** `--script <file.json>`: a scripted model. */
  readonly script?: string;
  /** `--sessions-dir <dir>`: overrides the config's `sessionsDir`. */
  readonly sessionsDir?: string;
  /** `--flush-ms <n>`: coalescing window. @default {50} */
  readonly flushMs: number;
  /** `--log-level` (else `DSH_LOG_LEVEL`). @default {"info"} */
  readonly logLevel: LogLevel;
  /** `-h`, `--help`: print the usage and exit. */
  readonly help?: true;
  /** `-V`, `--version`: print the version and exit. */
  readonly version?: true;
}
