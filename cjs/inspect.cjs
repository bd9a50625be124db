'use strict';
module.exports = require('./require-esm.cjs')(() => require('../dist/src/entries/inspect.js'), 'mcp-statechart/inspect', 'startInspector');
