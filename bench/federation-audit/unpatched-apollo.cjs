// Loaded with --require by gateway.sh in stock mode: @apollo/query-planner, @apollo/query-graphs and @apollo/gateway
// resolve to the unpatched copies run.sh prepared in FA_STOCK_APOLLO (the project's own copies carry
// the patches under patches/), so that "stock" is Apollo's code as published. Everything else, the
// copies' own dependencies included, resolves from the project as usual.
'use strict';
const Module = require('node:module');
const path = require('node:path');

const stock = process.env.FA_STOCK_APOLLO;
const root = process.env.FA_ROOT;
if (!stock || !root) throw new Error('unpatched-apollo.cjs needs FA_STOCK_APOLLO and FA_ROOT');
const UNPATCHED = /^@apollo\/(query-planner|query-graphs|gateway)(\/|$)/;
const original = Module._resolveFilename;
Module._resolveFilename = function resolveUnpatched(request, parent, isMain, options) {
  if (UNPATCHED.test(request)) return original.call(this, request, parent, isMain, { paths: [stock] });
  try {
    return original.call(this, request, parent, isMain, options);
  } catch (error) {
    const from = parent && parent.filename;
    if (from && from.startsWith(stock + path.sep) && !request.startsWith('.')) {
      return original.call(this, request, parent, isMain, { paths: [root] });
    }
    throw error;
  }
};
