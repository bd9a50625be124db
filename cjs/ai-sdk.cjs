'use strict';
module.exports = require('./require-esm.cjs')(() => require('../dist/src/entries/ai-sdk.js'), 'mcp-statechart/ai-sdk', 'toAiSdkTools');
