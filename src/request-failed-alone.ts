/**
 * The error answer the client hands the SDK for a request it fails itself (connection/session.ts
 * `failAlone`), as its `data`: the caller is told it as it is, with no server's error code, and
 * telemetry/client-telemetry.ts records the cut rather than a code no server sent. Its own module
 * so that telemetry, which sits below connection/, need not import it.
 */
export class RequestFailedAlone extends Error {
  override name = 'RequestFailedAlone';
}
