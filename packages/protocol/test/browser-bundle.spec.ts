import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import { webcrypto } from 'node:crypto';
import { build } from 'esbuild';
import { loadVector } from '../../../test/vectors';

/**
 * The package as a browser gets it (the operator console bundles it): esbuild for the browser
 * platform with no Node polyfills must resolve every import, none of them a Node builtin, and the
 * bundle must then work in a realm that has only what a browser has (no Buffer, no process, no
 * require): there it checks the contract's vectors through @noble alone.
 */

const NODE_BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const receipts = loadVector('receipts.json');
const payloads = loadVector('payloads.json');
const signin = loadVector('signin.json');

/** What the bundled package answers for the vectors; runs inside the browser-like realm. */
const CHECK = `(() => {
  const p = legworkProtocol;
  const v = JSON.parse(vectorsJson);
  const hex = (t) => p.fromHex(t);
  const out = {};
  out.implementation = p.defaultEd25519.name;
  out.hasNode = typeof Buffer !== 'undefined' || typeof process !== 'undefined' || typeof require !== 'undefined';
  out.domain = p.toHex(p.signingDomain(v.payloads.service_name));
  out.quoteIds = v.payloads.cases.map((c) => p.quoteId(hex(c.quote_payload_hex)));
  out.receipts = v.receipts.receipts.map((r) => {
    const receipt = { journal_seq: r.input.journal_seq, kind: r.input.kind, payload: p.toBase64(hex(r.payload_hex)), hash: r.hash, key_id: r.key_id, signature: r.signature, taker_salt: r.input.taker_salt };
    const keys = [{ key_id: v.receipts.key_id, public_key: v.receipts.exchange_public_key, from: 0 }];
    try {
      const d = p.verifyReceipt(receipt, { keys, taker: r.input.taker });
      return d.fillId.toString();
    } catch (e) {
      return 'refused: ' + e.message;
    }
  });
  const seed = hex(v.signin.wallet_seed_hex);
  const message = new TextEncoder().encode(v.signin.message);
  out.signin = p.encodeWallet(p.publicKeyFromSeed(seed)) === v.signin.wallet && p.verifyEd25519(p.parseWallet(v.signin.wallet), message, p.signEd25519(seed, message));
  out.salt = p.newTakerSalt().length;
  out.micro = p.formatRfq(p.parseRfqSigned('-1.5') * 2n);
  return JSON.stringify(out);
})()`;

describe('the package bundled for a browser', () => {
  let bundle: string;
  let inputs: string[];

  beforeAll(async () => {
    const result = await build({
      entryPoints: [join(__dirname, '..', 'src', 'index.ts')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      globalName: 'legworkProtocol',
      target: ['chrome110', 'firefox110', 'safari16'],
      metafile: true,
      logLevel: 'silent',
    });
    bundle = result.outputFiles[0].text;
    inputs = [...Object.keys(result.metafile.inputs), ...Object.values(result.metafile.inputs).flatMap((i) => i.imports.map((m) => m.path))];
  }, 60_000);

  it('pulls in no Node builtin (esbuild has no polyfill for one on this platform)', () => {
    expect(inputs.filter((path) => NODE_BUILTINS.has(path))).toEqual([]);
    expect(inputs.some((path) => path.includes('@noble/curves'))).toBe(true);
  });

  it('checks the vectors in a realm without Buffer, process or require, through @noble', () => {
    const realm = createContext({ TextEncoder, TextDecoder, crypto: webcrypto, vectorsJson: JSON.stringify({ receipts, payloads, signin }) });
    runInContext(bundle, realm);
    const out = JSON.parse(runInContext(CHECK, realm) as string);
    expect(out).toEqual({
      implementation: '@noble/curves',
      hasNode: false,
      domain: payloads.domain_hex,
      quoteIds: payloads.cases.map((c: any) => c.quote_id),
      receipts: receipts.receipts.map((r: any) => r.input.fill_id),
      signin: true,
      salt: 32,
      micro: '-3',
    });
  });
});
