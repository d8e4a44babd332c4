import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bs58 from 'bs58';
import { Keypair, decodeWallet, encodeWallet, isSmallOrderKey, messageToSign, signInMessage, verifySignature } from '../src/index';
import { loadVector } from './vectors';

const v = loadVector('signin.json');
const p = loadVector('payloads.json');
const hex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'));

describe('signin.json', () => {
  const keypair = Keypair.fromSeed(hex(v.wallet_seed_hex));

  it('derives the wallet from the seed', () => {
    assert.equal(keypair.wallet, v.wallet);
    assert.equal(encodeWallet(keypair.publicKey), v.wallet);
    assert.deepEqual(decodeWallet(v.wallet), keypair.publicKey);
  });

  it('builds the exact sign-in message', () => {
    assert.equal(signInMessage(v.service_name, v.wallet, v.nonce), v.message);
    assert.equal(messageToSign({ nonce: v.nonce }, v.wallet, v.service_name), v.message);
    assert.equal(messageToSign({ nonce: v.nonce, message: v.message }, v.wallet), v.message);
  });

  it('reproduces the signature byte for byte', () => {
    assert.equal(keypair.signBase58(v.message), v.signature_base58);
    assert.deepEqual(keypair.sign(Buffer.from(v.message, 'utf8')), bs58.decode(v.signature_base58));
    assert.equal(verifySignature(keypair.publicKey, Buffer.from(v.message, 'utf8'), bs58.decode(v.signature_base58)), true);
  });

  it('refuses to sign a server message that is not for this wallet and nonce', () => {
    assert.throws(() => messageToSign({ nonce: v.nonce, message: v.message.replace(v.wallet, p.maker_wallet) }, v.wallet));
    assert.throws(() => messageToSign({ nonce: 'ffffffffffffffffffffffffffffffff', message: v.message }, v.wallet));
    assert.throws(() => messageToSign({ nonce: v.nonce, message: 'transfer everything' }, v.wallet));
  });

  for (const w of v.invalid_wallets) {
    it(`refuses wallet ${JSON.stringify(w.text)} (${w.why})`, () => assert.throws(() => decodeWallet(w.text)));
  }

  it('recognises every small-order key, top bit set or not, and never verifies with one', () => {
    for (const h of v.small_order_public_keys_hex) {
      const key = hex(h);
      assert.equal(isSmallOrderKey(key), true);
      key[31] |= 0x80;
      assert.equal(isSmallOrderKey(key), true);
      assert.equal(verifySignature(key, new Uint8Array(1), new Uint8Array(64)), false);
    }
    assert.equal(isSmallOrderKey(keypair.publicKey), false);
  });

  it('derives the maker and taker wallets of payloads.json', () => {
    assert.equal(Keypair.fromSeed(hex(p.maker_seed_hex)).wallet, p.maker_wallet);
    assert.equal(Keypair.fromSeed(hex(p.taker_seed_hex)).wallet, p.taker_wallet);
  });

  it('generates distinct key pairs and refuses a seed that is not 32 bytes', () => {
    const a = Keypair.generate();
    const b = Keypair.generate();
    assert.notEqual(a.wallet, b.wallet);
    assert.equal(decodeWallet(a.wallet).length, 32);
    assert.throws(() => Keypair.fromSeed(new Uint8Array(31)));
  });
});
