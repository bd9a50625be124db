interface Issue {
  path: Array<string | number>;
  message: string;
}

function isIssue(value: unknown): value is Issue {
  if (typeof value !== 'object' || value === null) return false;
  const { path, message } = value as Record<string, unknown>;
  return typeof message === 'string' && Array.isArray(path) && path.every((key) => typeof key === 'string' || typeof key === 'number');
}

/**
 * The SDK says why it refused a server's answer with the schema's issues printed as a JSON array
 * over many lines ("Invalid result for tools/list: [\n  {\n    …"), so the first line of the
 * message is "…: [" and says nothing. This puts the issues on that line, each as its path and
 * message (`ttlMs: Invalid input: expected number, received undefined`); `undefined` when the
 * text holds no such array.
 */
export function issuesOnOneLine(text: string): string | undefined {
  const start = text.indexOf('[\n');
  const end = text.lastIndexOf(']');
  if (start < 0 || end < start) return undefined;
  let issues: unknown;
  try {
    issues = JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!Array.isArray(issues) || issues.length === 0 || !issues.every(isIssue)) return undefined;
  const said = issues.map(({ path, message }) => (path.length > 0 ? `${path.join('.')}: ${message}` : message)).join('; ');
  return `${text.slice(0, start)}${said}${text.slice(end + 1)}`;
}
