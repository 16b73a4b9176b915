/**
 * Lambda handler for the /imports routes (contract §20): editors create, change, list, delete and run imports. The work
 * itself is the import worker's (functions/import-worker.ts), which this function reaches through the import queue.
 */
import { createGroupHandler } from '../lib/http/handler.js';
import { pipelineStore } from '../lib/http/pipeline-store.js';
import { importRoutes } from '../lib/routes/imports.js';

const operations = () => import('../lib/imports/operations.js');

export const handler = createGroupHandler('imports', importRoutes, {
  'imports.list': async (ctx) => (await operations()).listImportsOp(ctx),
  'imports.create': async (ctx) => (await operations()).createImportOp(ctx),
  'imports.get': async (ctx) => (await operations()).getImportOp(ctx),
  'imports.update': async (ctx) => (await operations()).updateImportOp(ctx),
  'imports.update.put': async (ctx) => (await operations()).updateImportOp(ctx),
  'imports.update.patch': async (ctx) => (await operations()).updateImportOp(ctx),
  'imports.delete': async (ctx) => (await operations()).deleteImportOp(ctx),
  'imports.run': async (ctx) => (await operations()).runImportOp(ctx),
}, pipelineStore);
