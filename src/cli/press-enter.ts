/** Asks on stderr and waits for Enter (stdout may carry a protocol). */
export async function pressEnter(question: string): Promise<void> {
  const { askOnTerminal } = await import('./terminal-question.js');
  await askOnTerminal(question);
}
