// MCP extension of the guest prelude (feature mcp, spec/protocol.md §12.10).
//
// Evaluated after prelude.js in every template VM. At boot it builds, from
// the host's config.mcp table, the MCP namespace (MCP.<server>.<tool>, $api,
// resources.read, prompts.get) and the read-only virtual file surface API
// (API.list, API.read), which also serves config.apiFiles (§12.13). Every
// object is frozen and has no prototype, so tool names such as constructor
// or __proto__ are plain members (CM-MCP-07).
// Reading declarations needs no bridge call (CM-MCP-02); tool, resource and
// prompt calls are bridge requests the host re-validates (nested.go, mcp.go).
(function () {
  "use strict";
  const create = Object.create;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const isArray = Array.isArray;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const PromiseCtor = Promise;
  const StringCtor = String;
  const apply = Reflect.apply;
  const split = String.prototype.split;
  const startsWith = String.prototype.startsWith;
  const getPrototypeOf = Object.getPrototypeOf;
  const ObjectProto = Object.prototype;

  function record() { return create(null); }
  function member(o, k, v) {
    defineProperty(o, k, { value: v, enumerable: true, writable: false, configurable: false });
  }
  // copy is a fresh, guest-owned deep copy of host data.
  function copy(v) { return parse(stringify(v)); }

  function isPlainObject(v) {
    try {
      if (v === null || typeof v !== "object" || isArray(v)) return false;
      const p = getPrototypeOf(v);
      return p === null || p === ObjectProto;
    } catch (_) {
      return false; // a revoked or hostile proxy
    }
  }

  __codemode.extend(function (kit) {
    function invalid(message) {
      return PromiseCtor.reject(kit.plainError("ToolError", message, "invalid_input"));
    }
    // API errors keep the name of the API without feature mcp (prelude.js).
    function apiError(message) {
      return PromiseCtor.reject(kit.plainError("Error", message, "invalid_input"));
    }

    // badSegments: a path or prefix with a "." or ".." segment (CM-MCP-04).
    function badSegments(p) {
      const parts = apply(split, p, ["/"]);
      for (let i = 0; i < parts.length; i++) if (parts[i] === "." || parts[i] === "..") return true;
      return false;
    }

    function buildAPI(files) {
      const byPath = record();
      for (let i = 0; i < files.length; i++) byPath[files[i].path] = files[i];
      const api = record();
      member(api, "list", function list(prefix) {
        if (prefix !== undefined && typeof prefix !== "string") return apiError("API.list(prefix?) takes a string prefix");
        if (prefix !== undefined && badSegments(prefix)) {
          return apiError("Invalid API path prefix " + stringify(prefix) + ": \".\" and \"..\" segments are not allowed.");
        }
        const out = [];
        for (let i = 0; i < files.length; i++) {
          const f = files[i];
          if (prefix !== undefined && !apply(startsWith, f.path, [prefix])) continue;
          const m = { path: f.path, bytes: f.bytes };
          if (f.server) m.server = f.server;
          out[out.length] = m;
        }
        return PromiseCtor.resolve(out);
      });
      member(api, "read", function read(path) {
        if (typeof path !== "string") return apiError("API.read(path) takes a string path");
        if (badSegments(path)) {
          return apiError("Invalid API path " + stringify(path) + ": \".\" and \"..\" segments are not allowed.");
        }
        const f = byPath[path];
        if (!f) return apiError("Unknown API path " + stringify(path) + ". Use API.list() to see the files.");
        return PromiseCtor.resolve(f.text);
      });
      return freeze(api);
    }

    function header(s, fileText, tools, options) {
      let schema = false;
      if (options !== undefined && options !== null && typeof options === "object") {
        try { schema = options.schema === true; } catch (_) {}
      }
      const h = { server: s.server, path: s.path, text: fileText, tools: [] };
      for (let i = 0; i < tools.length; i++) {
        const t = tools[i];
        const e = { name: t.name, mcpName: t.mcpName, id: t.id, description: t.description };
        if (schema) {
          e.inputSchema = t.inputSchema === undefined ? { type: "object" } : copy(t.inputSchema);
          if (t.outputSchema !== undefined) e.outputSchema = copy(t.outputSchema);
        }
        h.tools[h.tools.length] = e;
      }
      return h;
    }

    function callTool(s, t) {
      const label = "MCP." + s.name + "." + t.name;
      return function (input) {
        let p;
        if (arguments.length > 1) {
          p = invalid(label + "(input) takes one object argument, got " + arguments.length + " arguments");
        } else if (input !== undefined && !isPlainObject(input)) {
          p = invalid(label + "(input) takes one plain object argument");
        } else {
          const fields = record();
          fields.tool = t.id;
          fields.input = kit.toJSON(input === undefined ? {} : input);
          p = kit.request("mcp", fields);
        }
        return kit.track(p, t.id);
      };
    }

    function serverCall(s, op, method, check) {
      const id = "mcp:" + s.server + ":" + method;
      return function (input) {
        let p;
        const msg = check(input);
        if (msg) p = invalid("MCP." + s.name + "." + msg);
        else {
          const fields = record();
          fields.tool = id;
          fields.input = kit.toJSON(input);
          p = kit.request(op, fields);
        }
        return kit.track(p, id);
      };
    }

    function buildServer(s, fileText) {
      const o = record();
      const byName = record();
      for (let i = 0; i < s.tools.length; i++) {
        const t = s.tools[i];
        byName[t.name] = t;
        member(o, t.name, callTool(s, t));
      }
      for (let i = 0; i < s.tools.length; i++) {
        const t = s.tools[i];
        if (byName[t.mcpName] === undefined) byName[t.mcpName] = t;
      }
      member(o, "$api", function $api(toolName, options) {
        if (toolName === undefined || toolName === null) return PromiseCtor.resolve(header(s, fileText, s.tools, options));
        const t = typeof toolName === "string" ? byName[toolName] : undefined;
        if (!t) {
          const known = [];
          for (let i = 0; i < s.tools.length; i++) known[known.length] = s.tools[i].name;
          return invalid("Unknown MCP tool " + stringify(StringCtor(toolName)) + " on MCP." + s.name + ". Known tools: " + known.join(", ") + ".");
        }
        return PromiseCtor.resolve(header(s, t.header, [t], options));
      });
      const resources = record();
      member(resources, "read", serverCall(s, "mcpResource", "resources/read", function (input) {
        if (!isPlainObject(input) || typeof input.uri !== "string") return "resources.read({uri}) takes an object with a string uri";
        return "";
      }));
      member(o, "resources", freeze(resources));
      const prompts = record();
      member(prompts, "get", serverCall(s, "mcpPrompt", "prompts/get", function (input) {
        if (!isPlainObject(input) || typeof input.name !== "string") return "prompts.get({name, arguments}) takes an object with a string name";
        const a = input.arguments;
        if (a === undefined) return "";
        if (!isPlainObject(a)) return "prompts.get({name, arguments}): arguments must be an object of strings";
        for (const k in a) if (typeof a[k] !== "string") return "prompts.get({name, arguments}): argument " + stringify(k) + " is not a string";
        return "";
      }));
      member(o, "prompts", freeze(prompts));
      return freeze(o);
    }

    return {
      boot: function (config) {
        const m = config.mcp;
        // config.apiFiles: the tools/<callable>.d.ts declarations of
        // generation 2's catalog surface (catalog.js), after the MCP files.
        const extra = config.apiFiles || [];
        if (!m && extra.length === 0) return;
        const files = [];
        const mf = m ? m.files || [] : [];
        for (let i = 0; i < mf.length; i++) files[files.length] = mf[i];
        for (let i = 0; i < extra.length; i++) files[files.length] = extra[i];
        if (m) {
          const texts = record();
          for (let i = 0; i < mf.length; i++) texts[mf[i].path] = mf[i].text;
          const ns = record();
          const servers = m.servers || [];
          for (let i = 0; i < servers.length; i++) member(ns, servers[i].name, buildServer(servers[i], texts[servers[i].path]));
          kit.defineGlobal("MCP", freeze(ns));
        }
        kit.defineGlobal("API", buildAPI(files));
      },
    };
  });
})();
"prelude-mcp-loaded";
