/** A response body of `totalBytes`, made chunk by chunk as it is read: `pulled()` is what was downloaded. */
export function bodyMadeAsRead(chunkBytes: number, totalBytes: number, fill = 0x61): { body: ReadableStream<Uint8Array>; pulled(): number; chunkBytes: number } {
  const chunk = new Uint8Array(chunkBytes).fill(fill);
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= totalBytes) return controller.close();
      pulled += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled, chunkBytes };
}
