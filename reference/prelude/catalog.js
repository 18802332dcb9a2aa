// Catalog extension of the guest prelude: generation 2's catalog surface
// (feature javascript-only, CM-TS-06, spec/protocol.md §12.13), after
// OpenClaw 2026.9.6.
//
// Evaluated after prelude.js in every template VM. When the host boots a
// cell with config.handles, every catalog entry with a callableName becomes
// a frozen callable handle: calling it is tools.call(id, input), and it
// carries callableName, toolName, description, source, the TypeScript-style
// input and output signatures and describe(). The handle is an async global
// under its callable name, catalog.all() lists the handles and
// catalog.search(query, options?) ranks them as tools.search does. Nothing
// here reaches a tool outside the run's catalog: handles exist only for its
// entries, and the host re-validates every call (nested.go).
(function () {
  "use strict";
  const create = Object.create;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const apply = Reflect.apply;
  const PromiseCtor = Promise;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const promiseThen = Promise.prototype.then;
  const hasOwn = Object.prototype.hasOwnProperty;
  const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const test = RegExp.prototype.test;

  function member(o, k, v, enumerable) {
    defineProperty(o, k, { value: v, enumerable: enumerable !== false, writable: false, configurable: false });
  }
  // copy is a fresh, guest-owned deep copy of host data.
  function copy(v) { return parse(stringify(v)); }

  __codemode.extend(function (kit) {
    // metadata is what a handle says about its tool, as plain data
    // (toJSON, describe()).
    function metadata(e) {
      const m = {};
      m.callableName = e.callableName;
      m.toolName = e.name;
      if (e.label) m.label = e.label;
      m.description = e.description;
      m.source = e.source;
      if (e.sourceName) m.sourceName = e.sourceName;
      m.input = e.input;
      m.output = e.output;
      return m;
    }

    function handle(e) {
      const id = e.id;
      // An arrow function: callable, no prototype, no construct.
      const h = (input) => kit.call(id, input);
      defineProperty(h, "name", { value: e.callableName, enumerable: false, writable: false, configurable: false });
      member(h, "callableName", e.callableName);
      member(h, "toolName", e.name);
      if (e.label) member(h, "label", e.label);
      member(h, "description", e.description);
      member(h, "source", e.source);
      if (e.sourceName) member(h, "sourceName", e.sourceName);
      member(h, "input", e.input);
      member(h, "output", e.output);
      member(h, "describe", function describe() {
        kit.counts.describe++;
        const d = metadata(e);
        d.parameters = e.parameters === undefined ? { type: "object", properties: {} } : copy(e.parameters);
        if (e.outputSchema !== undefined) d.outputSchema = copy(e.outputSchema);
        return PromiseCtor.resolve(d);
      });
      member(h, "toJSON", function toJSON() { return metadata(e); }, false);
      return freeze(h);
    }

    return {
      boot: function (config) {
        if (!config.handles) return;
        // The entries stay on the host (prelude.CatalogIndex, issue 28 N3):
        // a handle is made on first use and kept, so every way to a tool
        // gives the same handle.
        const byId = new MapCtor();
        function handleOf(e) {
          let h = apply(mapGet, byId, [e.id]);
          if (h === undefined) {
            h = handle(e);
            apply(mapSet, byId, [e.id, h]);
          }
          return h;
        }
        function handleById(id) {
          const h = apply(mapGet, byId, [id]);
          if (h !== undefined) return h;
          const q = create(null);
          q.id = id;
          const e = kit.ask("entry", q);
          return e === null ? undefined : handleOf(e);
        }
        function allHandles() {
          const es = kit.ask("callables");
          const out = [];
          for (let i = 0; i < es.length; i++) out[out.length] = handleOf(es[i]);
          return out;
        }
        const catalog = create(null);
        member(catalog, "search", function search(query, options) {
          return apply(promiseThen, kit.search(query, options), [function (found) {
            const out = [];
            for (let i = 0; i < found.length; i++) {
              const h = handleById(found[i].id);
              if (h !== undefined) out[out.length] = h;
            }
            return freeze(out);
          }]);
        });
        member(catalog, "all", function () {
          return freeze(allHandles());
        });
        kit.defineGlobal("catalog", freeze(catalog));
        // The async tool globals. The host never gives a handle the name of
        // another global (reference/catalog CallableNames); a name the
        // engine already defines keeps its value, and the handle stays in
        // catalog.all(). These are one property and one handle per callable
        // entry in every VM: the host bounds how many a run may have
        // (codemode maxCallableGlobals) and refuses a bigger catalog at
        // prepare, naming its size.
        const all = allHandles();
        for (let i = 0; i < all.length; i++) {
          const n = all[i].callableName;
          if (!apply(test, identifier, [n]) || apply(hasOwn, globalThis, [n])) continue;
          kit.defineGlobal(n, all[i]);
        }
      },
    };
  });
})();
"prelude-catalog-loaded";
