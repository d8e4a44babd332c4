"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
Object.defineProperty(exports, "__esModule", { value: true });
require("reflect-metadata");
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const platform_fastify_1 = require("@nestjs/platform-fastify");
const node_fs_1 = require("node:fs");
const body = JSON.parse((0, node_fs_1.readFileSync)('/tmp/exp/body.json', 'utf8'));
let C = class C {
    get() { return body; }
};
__decorate([
    (0, common_1.Get)('rfq-positions'),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", []),
    __metadata("design:returntype", void 0)
], C.prototype, "get", null);
C = __decorate([
    (0, common_1.Controller)('query')
], C);
let M = class M {
};
M = __decorate([
    (0, common_1.Module)({ controllers: [C] })
], M);
async function main() {
    const app = await core_1.NestFactory.create(M, new platform_fastify_1.FastifyAdapter({ logger: false }), { logger: false });
    await app.listen(Number(process.env.PORT ?? 4001), '127.0.0.1');
    console.log('nest ready');
}
void main();
//# sourceMappingURL=nestfloor.js.map