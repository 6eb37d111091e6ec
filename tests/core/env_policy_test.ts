import { deepEqual, equal, throws } from "node:assert/strict";
import {
  checkEnvPolicy,
  childEnv,
  looksSecret,
  scrubEnv,
  setEnvPolicy,
} from "../../core/env_policy.ts";

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

Deno.test("childEnv() applies the process-wide policy to the real environment", () => {
  Deno.env.set("DSH_ENV_TEST_TOKEN", "t");
  Deno.env.set("DSH_ENV_TEST_PLAIN", "p");
  try {
    const env = childEnv();
    equal(env.DSH_ENV_TEST_PLAIN, "p");
    equal("DSH_ENV_TEST_TOKEN" in env, false);
    setEnvPolicy({ inherit: "none", include: ["DSH_ENV_TEST_TOKEN"] });
    deepEqual(childEnv(), { DSH_ENV_TEST_TOKEN: "t" });
  } finally {
    setEnvPolicy({});
    Deno.env.delete("DSH_ENV_TEST_TOKEN");
    Deno.env.delete("DSH_ENV_TEST_PLAIN");
  }
});
