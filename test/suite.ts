import { afterAll, beforeAll } from "vitest";
import { type TestApp, openApp } from "./app";
import { type GitServer, startGitServer } from "./git-server";
import { type FakeOpenAI, type FakeReply, type TagRoute, routeByTag, startFakeOpenAI } from "./fake-openai";

/**
 * What a `describe` opens once for all its tests: `open` runs in the suite's beforeAll,
 * `close` in its afterAll (when `open` got that far). The object returned reads the opened
 * value's fields when a test reads them (and sets them on it), so a suite declares its
 * fixture in one line instead of a `let`, an assignment in beforeAll and a close in
 * afterAll; a field read before beforeAll has run throws, naming it. Fixtures declared
 * one after another open in that order and close in the reverse one.
 */
export function suiteFixture<T extends object>(open: () => Promise<T>, close: (value: T) => Promise<unknown> | void): T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await open();
  });
  afterAll(async () => {
    if (value) await close(value);
  });
  const opened = (key: string | symbol) => {
    if (!value) throw new Error(`the suite's fixture is used (${String(key)}) before its beforeAll has run`);
    return value;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(opened(key), key),
    set: (_, key, field) => Reflect.set(opened(key), key, field),
  });
}

/** `openApp(label, env)` for a whole `describe`: opened before its tests, closed after them. */
export function appSuite(label: string, env: (dir: string) => Record<string, string>): TestApp {
  return suiteFixture(() => openApp(label, env), (app) => app.close());
}

/** A fake OpenAI-compatible provider (fake-openai.ts) for a whole `describe`: replies are queued per test. */
export function openAISuite(): FakeOpenAI {
  return suiteFixture(() => startFakeOpenAI(), (fake) => fake.close());
}

/**
 * A fake OpenAI-compatible provider for a whole `describe`, answering each request from
 * `scripts` by its tag (fake-openai.ts `routeByTag`); the suite fills `scripts` per test.
 */
export function scriptedOpenAI(route: Omit<TagRoute, "scripts"> = {}): { fake: FakeOpenAI; scripts: Map<string, FakeReply[]> } {
  const scripts = new Map<string, FakeReply[]>();
  const fake = suiteFixture(
    async () => {
      const started = await startFakeOpenAI();
      started.route = routeByTag({ scripts, ...route });
      return started;
    },
    (started) => started.close(),
  );
  return { fake, scripts };
}

/** A git server (git-server.ts) with `users` for a whole `describe`; `repositories` makes its repositories once it listens. */
export function gitServerSuite(users: Record<string, string>, repositories: (server: GitServer) => void): GitServer {
  return suiteFixture(
    async () => {
      const server = await startGitServer({ users });
      repositories(server);
      return server;
    },
    (server) => server.close(),
  );
}
