'use strict';
module.exports = require('./require-esm.cjs')(() => require('../dist/src/entries/config.js'), 'mcp-statechart/config', 'discoverMcpServers');
