/** Jest globalTeardown: stops the server started by global-setup.ts (SIGTERM, then SIGKILL after 10 s). */
export default async function globalTeardown(): Promise<void> {
  const server = globalThis.__CALENDAR_TEST_SERVER__;
  if (!server) return;
  globalThis.__CALENDAR_TEST_SERVER__ = undefined;
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    process.stderr.write(`The local API (pid ${server.pid}) did not stop within 10 s of SIGTERM; killing it.\n`);
    child.kill('SIGKILL');
  }, 10_000);
  await exited;
  clearTimeout(timer);
}
