import { afterEach, beforeEach } from 'vitest';
import { initializeAndLoad, startServe, type ServeHost } from './serve-host.js';

/** Ends serve as a host does (closes its stdin), waits for it to exit, and removes its temporary home. */
export async function endServe(serve: ServeHost): Promise<void> {
  serve.end();
  await serve.exited;
  serve.cleanUp();
}

/** For each test of the file: a serve of the fixture server, initialized by a host (`initializeAndLoad`, nothing loaded), ended and cleaned up after the test. */
export function serveForEachTest(): () => ServeHost {
  let serve: ServeHost;
  beforeEach(async () => {
    serve = startServe();
    await initializeAndLoad(serve, []);
  });
  afterEach(() => endServe(serve));
  return () => serve;
}

/**
 * For a file whose tests start serve themselves (other servers, flags, environment): each serve
 * passed through the returned function is ended and cleaned up after its test (`endServe`), also
 * when the test failed or the serve exited already.
 */
export function servesEndedAfterEachTest(): <T extends ServeHost>(serve: T) => T {
  const started: ServeHost[] = [];
  afterEach(async () => {
    for (const serve of started.splice(0)) await endServe(serve);
  });
  return (serve) => {
    started.push(serve);
    return serve;
  };
}
