/**
 * Field builders for `dsh.jsonc`: each field carries its JSON Schema fragment and the parser that
 * enforces it, so the validator and `dsh.schema.json` come from one table (`CONFIG_FIELDS` in
 * config.ts). Adding a key is one entry there.
 *
 * @module
 */

/** A JSON Schema fragment (draft-07). */
export type ConfigSchema = { readonly [key: string]: unknown };

/** Throws the config error for the file being read. */
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
      return fail(
        `"${key}" must be one of ${values.map((a) => `"${a}"`).join(", ")}: received ${
          show(value)
        }`,
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
      value.forEach((item, i) => options.check?.(item, `${key}[${i}]`, fail));
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
      for (const name of Object.keys(record)) {
        if (!Object.hasOwn(fields, name)) {
          fail(
            `unknown key "${prefix}${name}": expected one of ${Object.keys(fields).join(", ")}`,
          );
        }
      }
      const out: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(fields)) {
        const parsed = field.parse(record[name], `${prefix}${name}`, fail);
        if (parsed !== undefined || !field.optional) out[name] = parsed;
      }
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
      for (const [name, v] of Object.entries(asRecord(value, key, fail))) {
        out[name] = item.parse(v, `${key}.${name}`, fail);
      }
      return out;
    },
  );
}

/** A field with a hand-written schema and parser. */
export function customField<T>(schema: ConfigSchema, parse: Field<T>["parse"]): Field<T, false> {
  return required(schema, parse);
}
