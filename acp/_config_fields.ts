/**
 * Field builders for `dsh.jsonc`: each field carries its JSON Schema fragment and the parser that
 * enforces it, so the validator and `dsh.schema.json` come from one table (`CONFIG_FIELDS` in
 * config.ts). Adding a key is one entry there.
 *
 * @module
 */

/** A JSON Schema fragment (draft-07). */
export type ConfigSchema = { readonly [key: string]: unknown };

/**
 * Reports a problem of the value at hand and ends its parse. Objects, maps and lists give their
 * parts a `fail` that records instead, so that every problem of a file is reported at once.
 */
export type Fail = (message: string) => never;

/** One configuration value: its schema and its parser (`undefined` in means "absent"). */
export interface Field<T, Optional extends boolean = boolean> {
  /** The JSON Schema fragment (with `description` and `default`). */
  readonly schema: ConfigSchema;
  /** True when an absent key is left out of the parsed object. */
  readonly optional: Optional;
  /** Checks `value` (at dotted `key`) and applies the default. */
  parse(value: unknown, key: string, fail: Fail): T;
}

/** The parsed type of a field. */
export type FieldValue<F> = F extends Field<infer T, boolean> ? T : never;

/** A table of fields by key. */
export type Fields = { readonly [key: string]: Field<unknown> };

type OptionalKeys<F extends Fields> = {
  [K in keyof F]: F[K] extends Field<unknown, true> ? K : never;
}[keyof F];

/** The parsed object of a table: optional fields become optional properties. */
export type FieldsValue<F extends Fields> =
  & { readonly [K in Exclude<keyof F, OptionalKeys<F>>]: FieldValue<F[K]> }
  & { readonly [K in OptionalKeys<F>]?: Exclude<FieldValue<F[K]>, undefined> };

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** The problems of one value, thrown by the nested `fail` and gathered by the enclosing object. */
class Problems extends Error {
  readonly messages: readonly string[];
  constructor(messages: readonly string[]) {
    super(messages.join("\n"));
    this.messages = messages;
  }
}

/** The `fail` nested values get: it throws {@linkcode Problems}, which their parent gathers. */
const nested: Fail = (message) => {
  throw new Problems([message]);
};

/**
 * Gathers the problems of the parts of one value, so that one read of a file reports all of
 * them; the enclosing `fail` gets them at the end (the top level words them as one message).
 */
class Gather {
  readonly #messages: string[] = [];

  /** Runs `parse` with the nested `fail`; a failure is recorded and gives `undefined`. */
  run<T>(parse: (fail: Fail) => T): T | undefined {
    try {
      return parse(nested);
    } catch (error) {
      if (!(error instanceof Problems)) throw error;
      this.#messages.push(...error.messages);
      return undefined;
    }
  }

  /** Records one problem. */
  add(message: string): void {
    this.#messages.push(message);
  }

  /** Fails through `fail` when anything was recorded: one message, or a numbered list. */
  finish(fail: Fail): void {
    const messages = this.#messages;
    if (messages.length === 0) return;
    if (fail === nested) throw new Problems(messages);
    fail(
      messages.length === 1
        ? messages[0]!
        : `${messages.length} problems:\n${messages.map((m, i) => `  ${i + 1}. ${m}`).join("\n")}`,
    );
  }
}

/** Edit distance with transpositions (optimal string alignment); inputs are short words. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The closest of `candidates` to `value` (case-insensitive edit distance, at most a third of
 * the longer word, at least 1), as ` did you mean "x"?`; `""` when none is close.
 */
export function didYouMean(value: unknown, candidates: readonly string[]): string {
  if (typeof value !== "string" || value === "") return "";
  let best: { name: string; cost: number } | undefined;
  for (const name of candidates) {
    const cost = distance(value.toLowerCase(), name.toLowerCase());
    const limit = Math.max(1, Math.floor(Math.max(value.length, name.length) / 3));
    if (cost <= limit && (best === undefined || cost < best.cost)) best = { name, cost };
  }
  return best === undefined ? "" : ` did you mean "${best.name}"?`;
}

function required<T>(schema: ConfigSchema, parse: Field<T>["parse"]): Field<T, false> {
  return { schema, optional: false, parse };
}

/** A string from a fixed list. */
export function enumField<const T extends string>(
  values: readonly T[],
  fallback: T,
  description: string,
): Field<T, false> {
  return required(
    { type: "string", enum: values, default: fallback, description },
    (value, key, fail) => {
      if (value === undefined) return fallback;
      if (typeof value === "string" && (values as readonly string[]).includes(value)) {
        return value as T;
      }
      const hint = didYouMean(value, values);
      return fail(
        `"${key}" must be one of ${values.map((a) => `"${a}"`).join(", ")}: received ${
          show(value)
        }${hint === "" ? "" : `;${hint}`}`,
      );
    },
  );
}

/** Options of {@linkcode textField}. */
export interface TextOptions {
  /** Extra schema keywords (`pattern`, `format`). */
  readonly schema?: ConfigSchema;
  /** An extra check after the type check. */
  readonly check?: (value: string, key: string, fail: Fail) => void;
}

/** A non-empty string with a default. */
export function textField(
  fallback: string,
  description: string,
  options: TextOptions = {},
): Field<string, false> {
  return required(
    { type: "string", minLength: 1, ...options.schema, default: fallback, description },
    (value, key, fail) => {
      if (value === undefined) return fallback;
      if (typeof value !== "string" || value === "") {
        return fail(`"${key}" must be a non-empty string: received ${show(value)}`);
      }
      options.check?.(value, key, fail);
      return value;
    },
  );
}

/** A list of strings, `[]` when absent. */
export function stringsField(
  description: string,
  options: TextOptions = {},
): Field<readonly string[], false> {
  return required(
    {
      type: "array",
      items: { type: "string", ...options.schema },
      default: [],
      description,
    },
    (value, key, fail) => {
      if (value === undefined) return [];
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
        return fail(`"${key}" must be an array of strings: received ${show(value)}`);
      }
      const gather = new Gather();
      value.forEach((item, i) =>
        gather.run((inner) => options.check?.(item, `${key}[${i}]`, inner))
      );
      gather.finish(fail);
      return value;
    },
  );
}

/** Makes a field optional: absent stays absent (no default). */
export function optional<T>(field: Field<T>): Field<T | undefined, true> {
  const { default: _, ...schema } = field.schema;
  return {
    schema,
    optional: true,
    parse: (value, key, fail) => value === undefined ? undefined : field.parse(value, key, fail),
  };
}

/** Checks that `value` is a plain object. */
export function asRecord(value: unknown, key: string, fail: Fail): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return fail(`"${key}" must be an object: received ${show(value)}`);
}

/** An object of known keys (unknown keys are an error); absent means all defaults. */
export function objectField<const F extends Fields>(
  fields: F,
  description: string,
): Field<FieldsValue<F>, false> {
  const properties = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.schema]));
  return required(
    { type: "object", description, properties, additionalProperties: false },
    (value, key, fail) => {
      const record = asRecord(value, key, fail);
      const prefix = key === "(top level)" ? "" : `${key}.`;
      const known = Object.keys(fields);
      const gather = new Gather();
      for (const name of Object.keys(record)) {
        if (!Object.hasOwn(fields, name)) {
          const hint = didYouMean(name, known);
          gather.add(`unknown key "${prefix}${name}":${hint} expected one of ${known.join(", ")}`);
        }
      }
      const out: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(fields)) {
        const parsed = gather.run((inner) => field.parse(record[name], `${prefix}${name}`, inner));
        if (parsed !== undefined || !field.optional) out[name] = parsed;
      }
      gather.finish(fail);
      return out as FieldsValue<F>;
    },
  );
}

/** A map from names to items, `{}` when absent. */
export function mapField<T>(
  item: Field<T>,
  description: string,
): Field<Readonly<Record<string, T>>, false> {
  return required(
    { type: "object", additionalProperties: item.schema, default: {}, description },
    (value, key, fail) => {
      const out: Record<string, T> = {};
      const gather = new Gather();
      for (const [name, v] of Object.entries(asRecord(value, key, fail))) {
        const parsed = gather.run((inner) => item.parse(v, `${key}.${name}`, inner));
        if (parsed !== undefined) out[name] = parsed;
      }
      gather.finish(fail);
      return out;
    },
  );
}

/** A field with a hand-written schema and parser. */
export function customField<T>(schema: ConfigSchema, parse: Field<T>["parse"]): Field<T, false> {
  return required(schema, parse);
}
