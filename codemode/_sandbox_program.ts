/**
 * Private: importing the program and describing its outcome inside the Code Mode sandbox.
 * Shipped as source by `_sandbox_main.ts` (see there): these functions reference only each other
 * and globals.
 *
 * @module
 */

/** The header joined to the program's first line, so reported lines match the model's source. */
export function programHeader(): string {
  return "export default async function __dshProgram() {";
}

/** A thrown value as `{name, message, line?}` (the program's line, from its data: URL frame). */
export function describeError(
  error: unknown,
  format: (args: unknown[]) => string,
): { name: string; message: string; line?: number } {
  try {
    if (error instanceof Error) {
      const frame = /data:application\/(?:typescript|javascript);base64,[^:\s)]*:(\d+):\d+/.exec(
        error.stack ?? "",
      );
      const result: { name: string; message: string; line?: number } = {
        name: error.name,
        message: String(error.message),
      };
      if (frame) result.line = Number(frame[1]);
      return result;
    }
    return { name: "Error", message: `non-error value thrown: ${format([error])}` };
  } catch {
    return { name: "Error", message: "<unprintable thrown value>" };
  }
}

export function toBase64(encoder: TextEncoder, text: string): string {
  const bytes = encoder.encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * Imports the program as a module. Plain JavaScript parses much faster than a TypeScript
 * transpile; TypeScript syntax fails the JavaScript parse and takes the second path, which also
 * reports real syntax errors.
 */
export async function importProgram(source: string): Promise<() => Promise<unknown>> {
  try {
    return (await import("data:application/javascript;base64," + source)).default;
  } catch (error) {
    if (!(error instanceof SyntaxError || /SyntaxError/.test(String(error)))) throw error;
    return (await import("data:application/typescript;base64," + source)).default;
  }
}

/** A syntax error's first line and position, without the wrapper header and the data URL. */
export function syntaxErrorMessage(message: string): string {
  const where = /data:application\/(?:typescript|javascript);base64,[^:\s)]*:(\d+):(\d+)/.exec(
    message,
  );
  let first = message.split("\n")[0] ?? "";
  if (where) {
    const line = Number(where[1]);
    const column = Number(where[2]) - (line === 1 ? programHeader().length : 0);
    first += ` (line ${line}, column ${column})`;
  }
  return first;
}

/** The `done` frame of a returned value: its JSON text, or an `InvalidOutput` error. */
export function doneFrame(
  value: unknown,
  format: (args: unknown[]) => string,
  stringify: typeof JSON.stringify,
): { ok: true; value?: string } | { ok: false; error: object } {
  if (value === undefined) return { ok: true };
  let text: string | undefined;
  try {
    text = stringify(value);
  } catch (error) {
    return {
      ok: false,
      error: { name: "InvalidOutput", message: describeError(error, format).message },
    };
  }
  if (text === undefined) {
    return {
      ok: false,
      error: {
        name: "InvalidOutput",
        message: `the returned ${typeof value} is not JSON-serializable`,
      },
    };
  }
  return { ok: true, value: text };
}
