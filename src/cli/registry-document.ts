/**
 * The documents an MCP Registry serves (the official API, `/v0.1`): a `ServerResponse`
 * (`{ server, _meta }`, the `server.json` format) and a `ServerList` (`{ servers, metadata }`).
 * Read with zod, loosely (registries add fields of their own); anything the CLI relies on is
 * checked. Everything in them comes from the registry's publishers: never trusted, always
 * escaped when shown.
 */
import { z } from 'zod';

/** An `Input`: a value, a default, or something the person has to give. */
const input = z.looseObject({
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: z.string().optional(),
  value: z.string().optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
});

const inputWithVariables = input.extend({ variables: z.record(z.string(), input).optional() });

const argument = inputWithVariables.extend({
  type: z.enum(['positional', 'named']),
  name: z.string().min(1).optional(),
  valueHint: z.string().optional(),
  isRepeated: z.boolean().optional(),
});

/** An environment variable or a header. */
const keyValueInput = inputWithVariables.extend({ name: z.string().min(1) });

const packageShape = z.looseObject({
  registryType: z.string(),
  registryBaseUrl: z.string().optional(),
  identifier: z.string().min(1),
  version: z.string().min(1).optional(),
  runtimeHint: z.string().optional(),
  transport: z.looseObject({ type: z.string() }).optional(),
  runtimeArguments: z.array(argument).optional(),
  packageArguments: z.array(argument).optional(),
  environmentVariables: z.array(keyValueInput).optional(),
});

const remoteShape = z.looseObject({
  type: z.string(),
  url: z.string().min(1),
  headers: z.array(keyValueInput).optional(),
  variables: z.record(z.string(), input).optional(),
});

export const REGISTRY_SERVER_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

const serverDetail = z.looseObject({
  name: z.string().regex(REGISTRY_SERVER_NAME, 'is not a registry server name (namespace/name)'),
  description: z.string().optional(),
  title: z.string().optional(),
  version: z.string().min(1),
  websiteUrl: z.string().optional(),
  packages: z.array(packageShape).optional(),
  remotes: z.array(remoteShape).optional(),
});

const officialMeta = z.looseObject({
  status: z.enum(['active', 'deprecated', 'deleted']).optional(),
  statusMessage: z.string().optional(),
  isLatest: z.boolean().optional(),
});

const serverResponse = z.looseObject({
  server: serverDetail,
  _meta: z.looseObject({ 'io.modelcontextprotocol.registry/official': officialMeta.optional() }).optional(),
});

const serverList = z.looseObject({
  servers: z.array(z.unknown()),
  metadata: z.looseObject({ nextCursor: z.string().nullish(), count: z.number().optional() }).optional(),
});

export type RegistryInput = z.infer<typeof input>;
export type RegistryArgument = z.infer<typeof argument>;
export type RegistryKeyValue = z.infer<typeof keyValueInput>;
export type RegistryPackage = z.infer<typeof packageShape>;
export type RegistryRemote = z.infer<typeof remoteShape>;
export type RegistryServer = z.infer<typeof serverDetail>;

export interface RegistryEntry {
  server: RegistryServer;
  status: 'active' | 'deprecated' | 'deleted';
  statusMessage?: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

function reasonOf(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const where = issue.path.length > 0 ? `"${issue.path.join('.')}" ` : '';
  return `${where}${issue.message}`;
}

/** One `ServerResponse`. */
export function parseServerResponse(value: unknown): Parsed<RegistryEntry> {
  const parsed = serverResponse.safeParse(value);
  if (!parsed.success) return { ok: false, reason: reasonOf(parsed.error) };
  const official = parsed.data._meta?.['io.modelcontextprotocol.registry/official'];
  return { ok: true, value: { server: parsed.data.server, status: official?.status ?? 'active', statusMessage: official?.statusMessage } };
}

/** One page of `GET /v0.1/servers`: its entries, how many were malformed, and the next cursor. */
export function parseServerList(value: unknown): Parsed<{ entries: RegistryEntry[]; malformed: number; nextCursor?: string }> {
  const parsed = serverList.safeParse(value);
  if (!parsed.success) return { ok: false, reason: reasonOf(parsed.error) };
  const entries: RegistryEntry[] = [];
  let malformed = 0;
  for (const item of parsed.data.servers) {
    const entry = parseServerResponse(item);
    if (entry.ok) entries.push(entry.value);
    else malformed += 1;
  }
  const nextCursor = parsed.data.metadata?.nextCursor;
  return { ok: true, value: { entries, malformed, nextCursor: nextCursor ? nextCursor : undefined } };
}
