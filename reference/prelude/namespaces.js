// Guest half of plugin namespaces (CM-NS-01, CM-NS-03, CM-NS-05).
//
// Evaluated right before prelude.js, in the same script. It leaves one
// builder on globalThis, which prelude.js takes and deletes before any guest
// code runs. At boot the builder turns the host's descriptors
// (reference/namespaces.Descriptor: plain JSON with null at each callable,
// and the callables' paths) into frozen objects, installs at each callable a
// function that sends {namespace, path, args} over the bridge, defines each
// namespace as a global and returns the frozen `namespaces` map. The host
// resolves and checks every call again; nothing here is trusted.
(function (global) {
  "use strict";
  const create = Object.create;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const objectKeys = Object.keys;
  const isArray = Array.isArray;
  const hasOwn = Object.prototype.hasOwnProperty;
  const apply = Reflect.apply;
  const join = Array.prototype.join;
  const MapCtor = Map;

  // copy makes fresh guest objects of plain host JSON.
  function copy(v) {
    if (v === null || typeof v !== "object") return v;
    if (isArray(v)) {
      const out = [];
      for (let i = 0; i < v.length; i++) out[i] = copy(v[i]);
      return out;
    }
    const out = {};
    const ks = objectKeys(v);
    for (let i = 0; i < ks.length; i++) {
      defineProperty(out, ks[i], { value: copy(v[ks[i]]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  function deepFreeze(v) {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
    const ks = objectKeys(v);
    for (let i = 0; i < ks.length; i++) deepFreeze(v[ks[i]]);
    return freeze(v);
  }

  function callable(kit, id, label, path, name) {
    const fn = {
      [name]: function () {
        const fields = create(null);
        fields.namespace = id;
        fields.path = path;
        const args = [];
        for (let i = 0; i < arguments.length; i++) args[i] = arguments[i];
        fields.args = kit.toJSONValue(args, 0, new MapCtor());
        kit.counts.call++; // a namespace call is a catalog call (CM-NS-05)
        return kit.track(kit.request("namespace", fields), label);
      },
    }[name];
    return fn;
  }

  function build(descs, kit) {
    const all = create(null);
    if (!isArray(descs)) return freeze(all);
    for (let i = 0; i < descs.length; i++) {
      const d = descs[i];
      const name = d.globalName;
      if (apply(hasOwn, global, [name]) || name in all) {
        throw new Error("namespace globalName " + name + " collides with an existing global");
      }
      const root = copy(d.value);
      for (let j = 0; j < d.callables.length; j++) {
        const segs = d.callables[j];
        let parent = root;
        for (let k = 0; k < segs.length - 1; k++) parent = parent[segs[k]];
        const path = apply(join, segs, ["."]);
        defineProperty(parent, segs[segs.length - 1], {
          value: callable(kit, d.id, name + "." + path, path, segs[segs.length - 1]),
          enumerable: true, writable: true, configurable: true,
        });
      }
      deepFreeze(root);
      kit.defineGlobal(name, root);
      all[name] = root;
    }
    return freeze(all);
  }

  defineProperty(global, "__codemodeNamespaceKit", { value: build, enumerable: false, writable: false, configurable: true });
})(globalThis);
