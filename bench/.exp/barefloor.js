"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
const fastify_1 = __importDefault(require("fastify"));
const node_fs_1 = require("node:fs");
const body = JSON.parse((0, node_fs_1.readFileSync)('/tmp/exp/body.json', 'utf8'));
const app = (0, fastify_1.default)({ logger: false });
app.get('/query/rfq-positions', async () => body);
app.listen({ port: Number(process.env.PORT ?? 4002), host: '127.0.0.1' }).then(() => console.log('bare ready'));
//# sourceMappingURL=barefloor.js.map