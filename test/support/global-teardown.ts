/** Jest globalTeardown: stops the server started by global-setup.ts (SIGTERM, then SIGKILL after 10 s). */
export default async function globalTeardown(): Promise<void> {
  const server = globalThis.__CALENDAR_TEST_SERVER__;
  if (!server) return;
  globalThis.__CALENDAR_TEST_SERVER__ = undefined;
  await server.stop();
}
