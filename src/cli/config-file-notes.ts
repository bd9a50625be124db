/**
 * What the manifest index notes of the files `--config` names, so `index --prune` without them
 * keeps the entries recorded from them (see ManifestIndex.noteConfigFile).
 */
import type { DiscoveredServer, DiscoveryResult } from '../config/types.js';
import type { ManifestIndex } from '../manifest-index/index.js';
import { configFiles, hasErrors, type GlobalOptions } from './options.js';

/** Every server discovery lists, disabled, awaiting approval and shadowed too, by the file that names it. */
export function listedServers(discovery: DiscoveryResult): DiscoveredServer[] {
  return [...Object.values(discovery.servers), ...(discovery.shadowed ?? [])];
}

/**
 * With `--config`: notes in the index the servers each given file names (their entries are filed
 * by name, as the user's are), so a later `index --prune` without that `--config` keeps them while
 * the file is there. By `index` and `doctor`, which record the manifests of every server they list. Not when a file did not load whole: what it names is not known.
 */
export function noteConfigFiles(index: ManifestIndex, options: GlobalOptions, discovery: DiscoveryResult): void {
  if (hasErrors(discovery)) return;
  const listed = listedServers(discovery);
  for (const file of configFiles(options)) index.noteConfigFile(file, listed.filter((server) => server.source === file).map((server) => server.name));
}
