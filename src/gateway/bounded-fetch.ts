/** A fetch whose answer body is cut off at a size: a JWKS or metadata document is small, an endless one is an attack. */
export function boundedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const reader = response.body?.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const next = reader ? await reader.read() : { done: true as const, value: undefined };
      if (next.done) break;
      size += next.value.byteLength;
      if (size > maxBytes) {
        await reader?.cancel();
        throw new Error(`the answer from ${new URL(response.url).origin} is larger than ${maxBytes} bytes`);
      }
      chunks.push(next.value);
    }
    return new Response(Buffer.concat(chunks), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
