/** Asks on stderr and waits for Enter (stdout may carry a protocol). */
export async function pressEnter(question: string): Promise<void> {
  const { createInterface } = await import('node:readline/promises');
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    await prompt.question(question);
  } finally {
    prompt.close();
  }
}
