'use strict';
module.exports = require('./require-esm.cjs')(() => require('../dist/src/testing/index.js'), 'mcp-statechart/testing', 'createScriptedRegistry');
