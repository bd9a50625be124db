/** A number with its noun agreeing: "1 tool", "0 tools", "3 resource templates". */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
