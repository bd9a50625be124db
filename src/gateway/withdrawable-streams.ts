/**
 * The `subscriptions/listen` streams of `serve --http`, kept by the identity that opened them, so
 * that when the gateway file withdraws an identity its open streams end, told why: the stream's
 * last message is the listen request's error answer (the JSON-RPC way a request ends), then the
 * SDK's own stream is cancelled, which unsubscribes it.
 */
import { ProtocolErrorCode } from '@modelcontextprotocol/server';

/** One open stream: whose, and how to end it. */
interface Withdrawable {
  owner: string;
  end(reason: string): void;
}

export class WithdrawableStreams {
  private readonly open = new Set<Withdrawable>();

  /** `response` (the answer to `owner`'s listen request `id`) with a body that `withdraw` can end. */
  keep(owner: string, id: string | number, response: Response): Response {
    const { body } = response;
    if (!body || !response.ok) return response;
    const reader = body.getReader();
    let ended = false;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const stream: Withdrawable = {
      owner,
      end: (reason) => {
        if (ended) return;
        ended = true;
        this.open.delete(stream);
        // Each frame the SDK writes is one chunk, so this one never lands inside another.
        const answer = { jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidRequest, message: reason } };
        controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(answer)}\n\n`));
        controller.close();
        void reader.cancel(reason).catch(() => {});
      },
    };
    const finish = () => {
      ended = true;
      this.open.delete(stream);
    };
    const wrapped = new ReadableStream<Uint8Array>({
      start: (opened) => {
        controller = opened;
      },
      async pull() {
        const read = await reader.read().catch((error: unknown) => ({ error }));
        if (ended) return;
        if ('error' in read) {
          finish();
          controller.error(read.error);
        } else if (read.done) {
          finish();
          controller.close();
        } else controller.enqueue(read.value);
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    });
    this.open.add(stream);
    return new Response(wrapped, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /** The identities with a stream open. */
  owners(): Set<string> {
    return new Set([...this.open].map((stream) => stream.owner));
  }

  /** Ends the open streams of `names` with `reason`. */
  withdraw(names: ReadonlySet<string>, reason: string): void {
    for (const stream of [...this.open]) if (names.has(stream.owner)) stream.end(reason);
  }
}
