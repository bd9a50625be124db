'use strict';
module.exports = require('./require-esm.cjs')(() => require('../dist/src/entries/view.js'), 'mcp-statechart/view', 'startLifecycleView');
