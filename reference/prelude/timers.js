// Timers extension of the guest prelude (feature bridge-queue, page 001
// [嵌套工具执行]; spec/protocol.md §12.12).
//
// Evaluated after prelude.js in every template VM. At boot, when the host's
// config.timers is set, it defines setTimeout and clearTimeout. A timer is a
// bridge request ("timer"): it takes a bridge slot like a nested call and,
// beyond maxPendingToolCalls, waits in the queue; its delay starts when the
// host gives it a slot (CM-NEST-13). clearTimeout sends "clearTimer": a
// queued timer is dropped before any host timer starts. The host answers a
// timer's request when it fires or is cleared; the callback runs only when
// it fired and was not cleared. Without config.timers neither global exists
// (CM-SEC-01 of generation 1).
(function () {
  "use strict";
  const create = Object.create;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const promiseThen = Promise.prototype.then;
  const apply = Reflect.apply;
  const NumberCtor = Number;
  const floor = Math.floor;
  const isFinite = Number.isFinite;
  // The host clamps a delay to maxTimerDelay (24 h, codemode/timers.go); the
  // guest clamps first, so that a huge delay (1e300, 2**63) still crosses
  // the bridge as an integer the host can read.
  const maxDelay = 86400000;

  __codemode.extend(function (kit) {
    return {
      boot: function (config) {
        if (!config.timers) return;
        const live = new MapCtor(); // timer number -> {cleared}
        let next = 1;
        function setTimeout(callback, delay) {
          if (typeof callback !== "function") throw kit.plainError("TypeError", "setTimeout: the callback must be a function", "invalid_input");
          const args = [];
          for (let i = 2; i < arguments.length; i++) args[args.length] = arguments[i];
          let ms = NumberCtor(delay);
          ms = isFinite(ms) && ms > 0 ? floor(ms < maxDelay ? ms : maxDelay) : 0;
          const n = next++;
          const t = create(null);
          t.cleared = false;
          apply(mapSet, live, [n, t]);
          const fields = create(null);
          fields.timer = n;
          fields.ms = ms;
          const p = kit.request("timer", fields);
          apply(promiseThen, p, [function (v) {
            apply(mapDelete, live, [n]);
            if (!t.cleared && v === "fired") apply(callback, undefined, args);
          }, function () {
            apply(mapDelete, live, [n]);
          }]);
          return n;
        }
        function clearTimeout(n) {
          const t = apply(mapGet, live, [n]);
          if (!t || t.cleared) return;
          t.cleared = true;
          const fields = create(null);
          fields.timer = n;
          kit.request("clearTimer", fields);
        }
        kit.defineGlobal("setTimeout", setTimeout);
        kit.defineGlobal("clearTimeout", clearTimeout);
      },
    };
  });
})();
"prelude-timers-loaded";
