/**
 * The registry's tool table: a global layer plus session-scoped layers, with cached sorted views
 * and schema lists per scope. Private to `tool_registry.ts`.
 *
 * @module
 */
import { describeValue } from "../core/error_message.ts";
import type { AnyToolDefinition } from "../tools/definition.ts";
import type { ToolMode, ToolSchema } from "./types.ts";

/** A registered definition with its model-facing schema (computed once at registration). */
export interface Entry {
  readonly definition: AnyToolDefinition;
  readonly schema: ToolSchema;
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

  /** @param codeRunnerName The tool listed in `"code"` mode (passed in to keep imports one-way). */
  constructor(codeRunnerName: string) {
    this.#codeRunnerName = codeRunnerName;
  }

  /** Whether `name` is registered in exactly this layer (not counting the global one for a scope). */
  has(name: string, scope: string | undefined): boolean {
    return (scope === undefined ? this.#tools : this.#scoped.get(scope))?.has(name) === true;
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

  /** The entry `name` resolves to in `scope`: the scoped layer first, then the global one. */
  resolve(name: string, scope: string | undefined): Entry | undefined {
    return (scope === undefined ? undefined : this.#scoped.get(scope)?.get(name)) ??
      this.#tools.get(name);
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
    const key = layer === undefined ? undefined : scope;
    let view = this.#views.get(key);
    if (view === undefined) {
      const visible = new Map(this.#tools);
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
