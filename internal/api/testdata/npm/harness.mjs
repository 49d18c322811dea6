// The protocol between a client script of this folder and the Go test
// that runs it (internal/api/npm_clients_test.go, runClientScript), shared
// by the scripts of every library:
//
// - the test gives the server's URL and tokens in the environment (env);
// - a script that needs the server in a known state, or the test to act
//   for it, writes a line {"sync": NAME, "data": ...} and waits for the
//   line {"sync": NAME, "answer": ...} on its standard input, which the
//   test writes once done ("subscribed": the script's stream is
//   listened to; "drained": every delivery job is done; "approve": a
//   person approved an app on the authorization page, the answer being
//   the code);
// - at the end it writes one line {"result": ...}, what it saw, which
//   the test checks, and exits 0; any failure exits 1 with the error on
//   standard error.
import { createInterface } from "node:readline";

let answers; // the lines of standard input, read once a script syncs

// env returns the environment variable name, failing if it is not set.
export function env(name) {
  const value = process.env[name];
  if (value === undefined || value === "") {
    throw new Error(`${name} is not set: run this script through the Go test`);
  }
  return value;
}

// write sends one line of the protocol to the test.
function write(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// sync asks the test for name (with data), and returns its answer once
// done.
export async function sync(name, data) {
  answers ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  write({ sync: name, data });
  const { value, done } = await answers.next();
  const reply = done ? undefined : JSON.parse(value);
  if (reply?.sync !== name) {
    throw new Error(`sync ${name}: the test answered ${done ? "nothing" : value}`);
  }
  return reply.answer;
}

// check fails the script, saying what, unless ok.
export function check(ok, what) {
  if (!ok) {
    throw new Error(what);
  }
}

// within resolves as promise does, or fails saying what after ms.
export async function within(ms, what, promise) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

// describe spells out an error, with what a library adds to it (an
// HTTP status, the server's description).
function describe(err) {
  if (!(err instanceof Error)) {
    return String(err);
  }
  const extra = Object.entries(err)
    .filter(([, v]) => v !== undefined && typeof v !== "object")
    .map(([k, v]) => `${k}=${v}`);
  return `${err.stack}${extra.length ? "\n" + extra.join(" ") : ""}`;
}

// run runs main, reports what it returns as the result and exits 0, or
// reports its failure and exits 1.
export async function run(main) {
  try {
    write({ result: await main() });
    process.exit(0);
  } catch (err) {
    process.stderr.write(describe(err) + "\n");
    process.exit(1);
  }
}
