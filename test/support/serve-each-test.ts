import { afterEach, beforeEach } from 'vitest';
import { initializeAndLoad, startServe, type ServeHost } from './serve-host.js';

/** For each test of the file: a serve of the fixture server, initialized by a host (`initializeAndLoad`, nothing loaded), ended and cleaned up after the test. */
export function serveForEachTest(): () => ServeHost {
  let serve: ServeHost;
  beforeEach(async () => {
    serve = startServe();
    await initializeAndLoad(serve, []);
  });
  afterEach(async () => {
    serve.end();
    await serve.exited;
    serve.cleanUp();
  });
  return () => serve;
}
