'use strict';
module.exports = require('./require-esm.cjs')(() => require('../dist/src/entries/oauth.js'), 'mcp-statechart/oauth', 'login');
