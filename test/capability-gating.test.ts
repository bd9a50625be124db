import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { stdioFixture } from './support/fixtures.js';

describe('capability gating', () => {
  it('never asks a tools-only server for resources or prompts', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-gating-'));
    const log = join(folder, 'requests.log');
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      const manifest = await manager.connect('tools-only', stdioFixture('--capabilities', 'tools', '--log-requests', log));
      expect(manifest.tools.length).toBeGreaterThan(0);
      expect(manifest.resources).toEqual([]);
      expect(manifest.prompts).toEqual([]);
      const methods = readFileSync(log, 'utf8').trim().split('\n');
      // server/discover is the era probe (a legacy server answers it with an error, then initialize).
      expect(methods).toEqual(['server/discover', 'initialize', 'tools/list']);
    } finally {
      await manager.dispose();
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('lists resources, templates and prompts when the server declares them', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'mcp-gating-'));
    const log = join(folder, 'requests.log');
    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      await manager.connect('full', stdioFixture('--log-requests', log));
      const methods = readFileSync(log, 'utf8').trim().split('\n').sort();
      expect(methods).toEqual(['initialize', 'prompts/list', 'resources/list', 'resources/templates/list', 'server/discover', 'tools/list']);
    } finally {
      await manager.dispose();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
