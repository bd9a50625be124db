'use strict';
module.exports = require('./require-esm.cjs')(() => require('../dist/machines/index.js'), 'mcp-statechart/machines', 'serverMachine');
