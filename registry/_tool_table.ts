/**
 * The tool table behind `ctx.tools`: a global layer plus session-scoped layers and masks, with
 * cached sorted views and schema lists per scope, and the model-facing schema types. It knows no
 * tool by name: which names are pinned (never masked: the reserved ones) and which schemas a view
 * lists (the listing hooks') are the registry's choice.
 *
 * @module
 */
import { HarnessError } from "../core/errors.ts";
import type { AnyToolDefinition } from "../tools/definition.ts";
import type { ToolSchema } from "./types.ts";

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
  readonly schemas: Map<string, readonly ToolSchema[]>;
}

/** Layers, resolution and cached views; change notification stays with the caller. */
export class ToolTable {
  readonly #pinned: (name: string) => boolean;
  /** The global layer. */
  readonly #tools = new Map<string, Entry>();
  /** Session-scoped layers (scope → name → entry); a scoped entry shadows a global one. */
  readonly #scoped = new Map<string, Map<string, Entry>>();
  /** Visible entries sorted by name, per scope (`undefined` = global only); cleared on change. */
  readonly #views = new Map<string | undefined, View>();
  /** Masks on global tools (`ctx.tools.restrict`): for every view, or for one scope's. */
  #masks: readonly Mask[] = [];

  /** @param pinned Whether a global tool is exempt from masks. */
  constructor(pinned: (name: string) => boolean) {
    this.#pinned = pinned;
  }

  /** Whether `name` is registered in exactly this layer (not counting the global one for a scope). */
  has(name: string, scope: string | undefined): boolean {
    return (scope === undefined ? this.#tools : this.#scoped.get(scope))?.has(name) === true;
  }

  /** Throws unless `name` is free in `scope`'s layer (no name twice in one layer). */
  checkFree(name: string, scope: string | undefined): void {
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
   * A pinned name is never hidden.
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
    if (this.#pinned(name)) return false;
    return this.#masks.some((m) =>
      (m.scope === undefined || m.scope === scope) && !m.visible(name)
    );
  }

  /** The visible definitions of `scope`, sorted by name. */
  list(scope: string | undefined): readonly AnyToolDefinition[] {
    return this.#view(scope).list;
  }

  /**
   * The visible schemas of `scope` that `lists` selects, sorted by name and cached under `key`
   * (the same key must come with the same selection until {@linkcode relist}).
   */
  schemas(
    key: string,
    lists: (definition: AnyToolDefinition) => boolean,
    scope: string | undefined,
  ): readonly ToolSchema[] {
    const view = this.#view(scope);
    let schemas = view.schemas.get(key);
    if (schemas === undefined) {
      schemas = Object.freeze(view.entries.filter((e) => lists(e.definition)).map((e) => e.schema));
      view.schemas.set(key, schemas);
    }
    return schemas;
  }

  /** Drops the cached schema lists (the selection of a key changed). */
  relist(): void {
    for (const view of this.#views.values()) view.schemas.clear();
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
