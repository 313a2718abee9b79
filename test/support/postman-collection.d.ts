// postman-collection ships its type definitions without naming them in its package.json.
/// <reference path="../../node_modules/postman-collection/types/index.d.ts" />
