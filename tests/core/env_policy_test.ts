import { deepEqual, equal, throws } from "node:assert/strict";
import {
  checkEnvPolicy,
  childEnv,
  looksSecret,
  looksSecretValue,
  scrubEnv,
} from "../../core/env_policy.ts";
import * as core from "../../core/mod.ts";
import { LocalExecutor } from "../../builtins/local_executor.ts";

const SOURCE: Record<string, string> = {
  PATH: "/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  JAVA_HOME: "/opt/java",
  DEEPSEEK_API_KEY: "sk-1",
  GITHUB_TOKEN: "ghp",
  aws_secret_access_key: "aws",
  PGPASSWORD: "pg",
  GOOGLE_APPLICATION_CREDENTIALS: "/k.json",
  SSH_AUTH_SOCK: "/run/ssh",
  NPM_CONFIG__AUTH: "npm",
};

Deno.test("scrubEnv() by default passes everything but secret-looking names and the DeepSeek key", () => {
  deepEqual(scrubEnv(SOURCE), {
    PATH: "/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
    JAVA_HOME: "/opt/java",
  });
});

Deno.test("scrubEnv() inherit core keeps the core set only; none keeps nothing", () => {
  deepEqual(scrubEnv(SOURCE, { inherit: "core" }), {
    PATH: "/bin",
    HOME: "/home/u",
    LANG: "C.UTF-8",
  });
  deepEqual(scrubEnv(SOURCE, { inherit: "none" }), {});
});

Deno.test("scrubEnv() include passes named variables, secrets included, case-insensitively", () => {
  deepEqual(scrubEnv(SOURCE, { inherit: "none", include: ["github_token", "JAVA_*"] }), {
    GITHUB_TOKEN: "ghp",
    JAVA_HOME: "/opt/java",
  });
});

Deno.test("scrubEnv() exclude wins over include and inherit; set comes last", () => {
  deepEqual(
    scrubEnv(SOURCE, {
      include: ["GITHUB_TOKEN"],
      exclude: ["GITHUB_*", "JAVA_HOME", "L?NG"],
      set: { CI: "1", PATH: "/usr/bin" },
    }),
    { PATH: "/usr/bin", HOME: "/home/u", CI: "1" },
  );
});

Deno.test("scrubEnv() never passes DEEPSEEK_API_KEY, even when included or set", () => {
  const env = scrubEnv(SOURCE, { include: ["*"], set: { DEEPSEEK_API_KEY: "sk-2" } });
  equal("DEEPSEEK_API_KEY" in env, false);
  equal(env.GITHUB_TOKEN, "ghp");
});

Deno.test("looksSecret() matches KEY, SECRET, TOKEN, PASSWORD, CREDENTIAL in any case", () => {
  for (const name of ["API_KEY", "my_secret", "Token", "DB_PASSWORD", "GCP_CREDENTIALS"]) {
    equal(looksSecret(name), true, name);
  }
  for (const name of ["PATH", "HOME", "LANG", "TERM"]) equal(looksSecret(name), false, name);
});

Deno.test("looksSecret() matches PAT and DSN as whole words (GH_PAT, SENTRY_DSN), not inside PATH", () => {
  for (
    const name of ["GH_PAT", "PAT", "gitlab_pat", "PAT_GITHUB", "SENTRY_DSN", "DSN", "db_dsn_main"]
  ) {
    equal(looksSecret(name), true, name);
  }
  for (const name of ["PATH", "MANPATH", "PATCH_LEVEL", "DSNAME", "PYTHONPATH"]) {
    equal(looksSecret(name), false, name);
  }
});

Deno.test("looksSecretValue() flags URLs with passwords or token users and password= fields", () => {
  for (
    const value of [
      "postgres://app:hunter2@db.internal:5432/app",
      "mysql://root:pw@127.0.0.1/db",
      "redis://:s3cret@cache:6379/0",
      "amqp://guest:guest@rabbit/",
      "https://user:p%40ss@registry.example.com/simple",
      "https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/o/r.git",
      "host=db user=app password=hunter2 dbname=app",
      "Server=db;Database=app;Uid=sa;Pwd=hunter2;",
      "jdbc:postgresql://db/app?user=app&password=hunter2",
      "before https://a:b@c.example after",
    ]
  ) equal(looksSecretValue(value), true, value);
  for (
    const value of [
      "https://example.com/path?x=1",
      "ssh://git@github.com/o/r.git",
      "http://[::1]:8080/health",
      "http://localhost:3000/a@b",
      "/usr/local/bin:/usr/bin",
      "user@example.com",
      "password",
    ]
  ) equal(looksSecretValue(value), false, value);
});

Deno.test("scrubEnv() drops credential URLs and *_PAT / *_DSN names unless included", () => {
  const source = {
    DATABASE_URL: "postgres://app:hunter2@db/app",
    REDIS_URL: "redis://cache:6379",
    PIP_EXTRA_INDEX_URL: "https://u:pw@pypi.example/simple",
    GH_PAT: "github_pat_1",
    SENTRY_DSN: "https://abc@o1.ingest.sentry.io/2",
    PATH: "/bin",
  };
  deepEqual(scrubEnv(source), { REDIS_URL: "redis://cache:6379", PATH: "/bin" });
  deepEqual(scrubEnv(source, { inherit: "none", include: ["DATABASE_URL", "GH_PAT"] }), {
    DATABASE_URL: "postgres://app:hunter2@db/app",
    GH_PAT: "github_pat_1",
  });
});

Deno.test("checkEnvPolicy() names the bad key and value", () => {
  deepEqual(checkEnvPolicy(undefined), {});
  throws(() => checkEnvPolicy([]), { message: '"env" must be an object: received []' });
  throws(() => checkEnvPolicy({ include: "A" }), {
    message: '"env.include" must be an array of non-empty strings: received "A"',
  });
  throws(() => checkEnvPolicy({ set: { A: 1 } }), {
    message: '"env.set" must be an object of string values: received {"A":1}',
  });
});

Deno.test("childEnv() applies the policy it is given, else the default scrub: no process-wide policy", async () => {
  Deno.env.set("DSH_ENV_TEST_TOKEN", "t");
  Deno.env.set("DSH_ENV_TEST_PLAIN", "p");
  try {
    const env = childEnv();
    equal(env.DSH_ENV_TEST_PLAIN, "p");
    equal("DSH_ENV_TEST_TOKEN" in env, false);
    deepEqual(childEnv({ inherit: "none", include: ["DSH_ENV_TEST_TOKEN"] }), {
      DSH_ENV_TEST_TOKEN: "t",
    });
    equal("setEnvPolicy" in core, false);
    // Two executors (two harnesses) in one process: each child sees its own policy only.
    const strict = new LocalExecutor({ envPolicy: { inherit: "none", set: { ONLY: "1" } } });
    const plain = new LocalExecutor();
    const envOf = async (executor: LocalExecutor) => {
      const chunks: string[] = [];
      const decoder = new TextDecoder();
      await executor.run("env", { onOutput: (chunk) => void chunks.push(decoder.decode(chunk)) });
      return { stdout: chunks.join("") };
    };
    const [a, b] = await Promise.all([envOf(strict), envOf(plain)]);
    equal(a.stdout.includes("ONLY=1"), true);
    equal(a.stdout.includes("DSH_ENV_TEST_PLAIN"), false);
    equal(b.stdout.includes("DSH_ENV_TEST_PLAIN=p"), true);
    equal(b.stdout.includes("ONLY=1"), false);
    equal(b.stdout.includes("DSH_ENV_TEST_TOKEN"), false);
  } finally {
    Deno.env.delete("DSH_ENV_TEST_TOKEN");
    Deno.env.delete("DSH_ENV_TEST_PLAIN");
  }
});
