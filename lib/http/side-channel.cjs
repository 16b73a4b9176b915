/**
 * The Lambda bundles resolve the `side-channel` package (a dependency of `qs`) to this module (infra/bundling.ts):
 * the same interface over a WeakMap/Map. The package guards against tampered built-ins of old engines through
 * get-intrinsic and object-inspect, about 40 KB of every bundle; Node 24 has WeakMap and Map. Unbundled code (npm
 * start, tests) keeps the package. CommonJS, as `qs` requires it.
 */
'use strict';

module.exports = function getSideChannel() {
  const weak = new WeakMap();
  const strong = new Map();
  const isObject = (key) => (typeof key === 'object' && key !== null) || typeof key === 'function';
  const channel = {
    assert(key) {
      if (!channel.has(key)) throw new TypeError('Side channel does not contain the given key');
    },
    get: (key) => (isObject(key) ? weak.get(key) : strong.get(key)),
    has: (key) => (isObject(key) ? weak.has(key) : strong.has(key)),
    set(key, value) {
      if (isObject(key)) weak.set(key, value);
      else strong.set(key, value);
    },
    delete: (key) => (isObject(key) ? weak.delete(key) : strong.delete(key)),
  };
  return channel;
};
