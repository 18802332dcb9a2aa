// Guest half of the results store and the session store (features results
// and session-store, page 001; spec/protocol.md §12.9).
//
// Evaluated right before prelude.js, in the same script. It leaves one
// installer on globalThis, which prelude.js takes and deletes before any
// guest code runs. At boot the installer defines `results` (save, load,
// delete) when config.results is set and `store`/`load` when config.store is
// set (store(key, undefined) deletes key); each is an async bridge request the host answers at once. The host
// checks every request again and keeps the data; nothing here is trusted.
(function (global) {
  "use strict";
  const freeze = Object.freeze;
  const StringCtor = String;
  const MapCtor = Map;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const apply = Reflect.apply;

  global.__codemodeStoreKit = function install(config, kit) {
    const request = kit.request;
    function ask(op, key, value, hasValue) {
      const fields = kit.record();
      fields.key = key;
      if (hasValue) fields.input = kit.toJSONValue(value === undefined ? null : value, 0, new MapCtor());
      return request(op, fields);
    }
    // load answers {found, value}: a missing key is undefined, not null.
    function unwrap(p) {
      return apply(promiseThen, p, [function (r) { return r !== null && typeof r === "object" && r.found ? r.value : undefined; }]);
    }
    // Each call settles through its promise: a bad key or value rejects,
    // never throws synchronously.
    function op(f) {
      return function () {
        try { return apply(f, undefined, arguments); } catch (e) { return PromiseCtor.reject(e); }
      };
    }
    if (config.results) {
      kit.defineGlobal("results", freeze({
        save: op(function (value) { return ask("results.save", "", value, true); }),
        load: op(function (ref) { return unwrap(ask("results.load", StringCtor(ref), undefined, false)); }),
        delete: op(function (ref) { return ask("results.delete", StringCtor(ref), undefined, false); }),
      }));
    }
    if (config.store) {
      kit.defineGlobal("store", op(function (key, value) { return ask("store.set", StringCtor(key), value, value !== undefined); }));
      kit.defineGlobal("load", op(function (key) { return unwrap(ask("store.load", StringCtor(key), undefined, false)); }));
    }
  };
})(globalThis);
