/**
 * The tool table behind `ctx.tools`: a global layer plus session-scoped layers and masks, with
 * cached sorted views and schema lists per scope, and the model-facing schema types.
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import { HarnessError } from "../core/errors.ts";
import type { AnyToolDefinition, JsonSchema } from "./definition.ts";

/** How tools are presented to the model. */
export type ToolMode = "native" | "code" | "both";

/** A model-facing tool schema. */
export interface ToolSchema {
  /** Tool name. */
  readonly name: string;
  /** Description. */
  readonly description: string;
  /** JSON Schema of the arguments. */
  readonly parameters: JsonSchema;
}

/** A registered definition with its model-facing schema (computed once at registration). */
export interface Entry {
  readonly definition: AnyToolDefinition;
  readonly schema: ToolSchema;
}

interface Mask {
  readonly visible: (name: string) => boolean;
  readonly scope: string | undefined;
}

interface View {
  readonly entries: readonly Entry[];
  readonly list: readonly AnyToolDefinition[];
  readonly schemas: Map<ToolMode, readonly ToolSchema[]>;
}

/** Layers, resolution and cached views; change notification stays with the caller. */
export class ToolTable {
  readonly #codeRunnerName: string;
  /** The global layer. */
  readonly #tools = new Map<string, Entry>();
  /** Session-scoped layers (scope → name → entry); a scoped entry shadows a global one. */
  readonly #scoped = new Map<string, Map<string, Entry>>();
  /** Visible entries sorted by name, per scope (`undefined` = global only); cleared on change. */
  readonly #views = new Map<string | undefined, View>();
  /** Masks on global tools (`ctx.tools.restrict`): for every view, or for one scope's. */
  #masks: readonly Mask[] = [];

  /** @param codeRunnerName The tool listed in `"code"` mode (passed in to keep imports one-way). */
  constructor(codeRunnerName: string) {
    this.#codeRunnerName = codeRunnerName;
  }

  /** Whether `name` is registered in exactly this layer (not counting the global one for a scope). */
  has(name: string, scope: string | undefined): boolean {
    return (scope === undefined ? this.#tools : this.#scoped.get(scope))?.has(name) === true;
  }

  /**
   * Throws unless `name` may be registered in `scope`'s layer: the code runner's name only by
   * `registerCodeRunner()`, which takes no other, and no name twice in one layer.
   */
  checkFree(name: string, scope: string | undefined, codeRunner: boolean): void {
    const runner = this.#codeRunnerName;
    if (codeRunner && name !== runner) {
      throw new TypeError(
        `Cannot register a code runner named ${
          JSON.stringify(name)
        }: the code runner must be named "${runner}"`,
      );
    }
    if (!codeRunner && name === runner) {
      throw new HarnessError(
        "RESERVED_TOOL",
        `tool "${runner}" is reserved for the Code Mode runner: use registerCodeRunner()`,
      );
    }
    if (this.has(name, scope)) {
      throw new HarnessError(
        "DUPLICATE_TOOL",
        `tool "${name}" is already registered in this scope`,
      );
    }
  }

  /**
   * Adds `entry` to its layer and returns the remover, which reports whether it changed anything
   * (`false` once the entry was replaced or removed).
   */
  add(name: string, entry: Entry, scope: string | undefined): () => boolean {
    let layer = this.#tools;
    if (scope !== undefined) {
      layer = this.#scoped.get(scope) ?? new Map();
      this.#scoped.set(scope, layer);
    }
    layer.set(name, entry);
    this.#views.clear();
    return () => {
      if (layer.get(name) !== entry) return false;
      layer.delete(name);
      if (scope !== undefined && layer.size === 0 && this.#scoped.get(scope) === layer) {
        this.#scoped.delete(scope);
      }
      this.#views.clear();
      return true;
    };
  }

  /**
   * Adds a mask hiding global tools (in `scope`'s view, or in every view) and returns its remover.
   * The code runner is never hidden.
   */
  mask(visible: (name: string) => boolean, scope: string | undefined): () => void {
    const mask: Mask = { visible, scope };
    this.#masks = [...this.#masks, mask];
    this.#views.clear();
    return () => {
      this.#masks = this.#masks.filter((m) => m !== mask);
      this.#views.clear();
    };
  }

  /** The entry `name` resolves to in `scope`: the scoped layer first, then the global one. */
  resolve(name: string, scope: string | undefined): Entry | undefined {
    const scoped = scope === undefined ? undefined : this.#scoped.get(scope)?.get(name);
    if (scoped !== undefined) return scoped;
    const entry = this.#tools.get(name);
    return entry !== undefined && this.#masks.length > 0 && this.#hidden(name, scope)
      ? undefined
      : entry;
  }

  /** Whether a mask hides the global tool `name` from `scope`'s view. */
  #hidden(name: string, scope: string | undefined): boolean {
    if (name === this.#codeRunnerName) return false;
    return this.#masks.some((m) =>
      (m.scope === undefined || m.scope === scope) && !m.visible(name)
    );
  }

  /** The visible definitions of `scope`, sorted by name. */
  list(scope: string | undefined): readonly AnyToolDefinition[] {
    return this.#view(scope).list;
  }

  /** The visible schemas of `scope` for `mode`, sorted by name and cached. */
  schemas(mode: ToolMode, scope: string | undefined): readonly ToolSchema[] {
    if (mode !== "native" && mode !== "code" && mode !== "both") {
      throw new TypeError(
        `Cannot list tool schemas: mode is ${
          describeValue(mode)
        }, expected "native", "code" or "both"`,
      );
    }
    const view = this.#view(scope);
    let schemas = view.schemas.get(mode);
    if (schemas === undefined) {
      const runner = this.#codeRunnerName;
      schemas = Object.freeze(
        view.entries.filter((e) =>
          mode === "both" || (mode === "code") === (e.definition.name === runner)
        ).map((e) => e.schema),
      );
      view.schemas.set(mode, schemas);
    }
    return schemas;
  }

  /** The cached, sorted view of `scope` (a scope without registrations shares the global view). */
  #view(scope: string | undefined): View {
    const layer = scope === undefined ? undefined : this.#scoped.get(scope);
    const masked = scope !== undefined && this.#masks.some((m) => m.scope === scope);
    const key = layer === undefined && !masked ? undefined : scope;
    let view = this.#views.get(key);
    if (view === undefined) {
      const visible = new Map(this.#tools);
      if (this.#masks.length > 0) {
        for (const name of this.#tools.keys()) {
          if (this.#hidden(name, key)) visible.delete(name);
        }
      }
      for (const [name, entry] of layer ?? []) visible.set(name, entry);
      const entries = Object.freeze(
        [...visible.values()].sort((a, b) => compare(a.definition.name, b.definition.name)),
      );
      view = {
        entries,
        list: Object.freeze(entries.map((e) => e.definition)),
        schemas: new Map(),
      };
      this.#views.set(key, view);
    }
    return view;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
