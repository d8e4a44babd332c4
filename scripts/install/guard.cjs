// Preloaded into every Node process of an install by check-no-phone-home.mjs (NODE_OPTIONS=--require):
// npm itself and every install script it starts. Each process writes the program it runs to the log,
// and every host but the allowed ones (the registry's, loopback) is unresolvable: the lookup fails
// with ENOTFOUND, as it would for a name that does not exist, and the attempt is written to the log.
'use strict';
const fs = require('node:fs');
const dns = require('node:dns');

const log = process.env.LEGWORK_INSTALL_GUARD_LOG;
const allowed = new Set((process.env.LEGWORK_INSTALL_GUARD_HOSTS || '').split(',').filter(Boolean));

function record(line) {
  if (log) fs.appendFileSync(log, `${line}\n`);
}

function refused(host) {
  if (allowed.has(String(host).toLowerCase())) return false;
  record(`refused ${host}`);
  return true;
}

function notFound(host) {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND', errno: -3008, syscall: 'getaddrinfo', hostname: host });
}

record(`run ${process.argv[1] || '(no file)'}`);

const lookup = dns.lookup;
dns.lookup = function guardedLookup(host, options, callback) {
  if (!refused(host)) return lookup.call(this, host, options, callback);
  process.nextTick(typeof options === 'function' ? options : callback, notFound(host));
  return {};
};

const promisedLookup = dns.promises.lookup;
dns.promises.lookup = async function guardedPromisedLookup(host, options) {
  if (refused(host)) throw notFound(host);
  return promisedLookup.call(this, host, options);
};
