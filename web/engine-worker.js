// privopt's compute engine, in a Web Worker. Once its scripts are loaded it posts
// {loaded: true}: the page creates every worker while it loads, so that no script is fetched
// later. The page posts the compiled app.wasm module (and the demo's files, {module, demo}) as
// the first message when it first needs the worker; run in a worker, the module takes its
// engine role and calls privoptEngineStarted with the Go function that handles one message,
// and the one that takes the messages of a farm (pass). Messages that arrive before then are
// queued.
//
// A run farms its full passes out to helpers, other engine workers (wasm/engine/farm.go, which
// describes the messages): the page posts each helper a "help" request with a MessagePort
// ({request, port}) and the run the other ends ({request, ports}). This script holds the ports
// and the helpers' states, hands each ready and idle helper its range of each pass and gathers
// their sums for Go; the messages are Uint8Arrays of float64s, from worker to worker, never
// through the page.
'use strict';
importScripts('wasm_exec.js');

let module = null;
const queued = [];

self.onmessage = (event) => {
  if (module === null) {
    module = event.data;
    if (!(module instanceof WebAssembly.Module) && module !== null && typeof module === 'object') {
      self.privoptDemo = module.demo;
      module = module.module;
    }
    start().catch((err) => {
      self.postMessage(JSON.stringify({ id: 0, kind: 'error', error: 'the engine failed to start: ' + err }));
    });
    return;
  }
  queued.push(event.data);
};

let helpers = []; // the last run's helpers: {port, ready, part, parts, busy, first, last}
let farmed = null; // the pass under way: {seq, own, width, out, waiting}
let helpPort = null; // the port of the run this worker helps
let finish = null; // hands Go the sums of a pass (set once Go has started)
// helperWait is how long a pass waits for its helpers (ms): then Go computes the chunks whose
// sums it lacks, and the helpers that have not answered get no range until they do.
const helperWait = 10000;
const floats = (bytes) => new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
const send = (port, f) => port.postMessage(new Uint8Array(f.buffer), [f.buffer]);

self.privoptEngineStarted = (handle, pass) => {
  finish = (p) => {
    if (farmed !== p) return; // handed already
    farmed = null;
    clearTimeout(p.timer);
    const out = p.out || new Float64Array([p.seq]);
    pass(0, new Uint8Array(out.buffer));
  };
  // answered takes helper h's sums of a range of the pass under way ([seq, 1, scalars...,
  // vectors...]), and hands Go the pass's sums once every helper asked has answered.
  const answered = (h, a) => {
    h.busy = false;
    const p = farmed;
    if (!p || a[0] !== p.seq) return; // an earlier pass's
    const k = h.last - h.first;
    const width = k > 0 ? (a.length - 2) / k - 1 : p.width;
    if (a[1] !== 1 || !(width === p.width || (p.width < 0 && Number.isInteger(width) && width >= 0))) {
      h.ready = false; // it cannot help, or answers garbage: it gets no range again
    } else if (k > 0) {
      if (!p.out) {
        p.width = width;
        p.out = new Float64Array(1 + p.own * (width + 2));
        p.out[0] = p.seq;
      }
      p.out.fill(1, 1 + h.first, 1 + h.last);
      p.out.set(a.subarray(2, 2 + k), 1 + p.own + h.first);
      p.out.set(a.subarray(2 + k), 1 + 2 * p.own + h.first * width);
    }
    if (--p.waiting === 0) finish(p);
  };
  const onMessage = (message) => {
    if (message && message.ports) {
      for (const h of helpers) h.port.close();
      helpers = message.ports.map((port) => ({ port, ready: false, busy: false }));
      for (const h of helpers) {
        h.port.onmessage = (e) => {
          const a = floats(e.data);
          if (a[0] === 0) {
            // Its first message: whether it helps, and the range of the chunks it holds.
            [h.part, h.parts] = [a[2], a[3]];
            h.ready = a[1] === 1 && h.parts === helpers.length + 1 && Number.isInteger(h.part) && h.part >= 0 && h.part < h.parts - 1;
          } else answered(h, a);
        };
      }
    }
    handle(message);
    if (message && message.port) {
      if (helpPort) helpPort.close();
      const port = message.port;
      helpPort = port;
      // answer posts the answer to a message and reports whether it holds a chunk's sums (send
      // transfers its buffer).
      const answer = (bytes) => {
        const a = floats(pass(-1, bytes));
        const sums = a[0] !== 0 && a[1] === 1 && a.length > 2;
        send(port, a);
        return sums;
      };
      port.onmessage = (e) => {
        // The ranges answered with their sums are counted for tests/workers.test.mjs.
        if (answer(e.data)) self.privoptRangesAnswered = (self.privoptRangesAnswered || 0) + 1;
      };
      answer(new Uint8Array(0)); // whether this worker helps: its first message
    }
  };
  self.onmessage = (event) => onMessage(event.data);
  for (const message of queued.splice(0)) onMessage(message);
};

// privoptFarm hands each ready and idle helper its range of the chunks of a pass of the run
// ([seq, op, clip, 0, chunks, rows, θ...], bytes): of parts = helpers + 1 ranges, helper part's
// is the chunks from ⌊part·chunks/parts⌋ to ⌊(part + 1)·chunks/parts⌋ − 1, the rows it holds
// (farm.go), and the last range is the run's own. It returns the first chunk of the run's range (0 when no
// helper takes a range). Go calls it.
self.privoptFarm = (bytes) => {
  const pass = floats(bytes);
  const n = pass[4];
  const idle = helpers.filter((h) => h.ready && !h.busy);
  if (idle.length === 0) return 0;
  const parts = helpers.length + 1;
  const p = { seq: pass[0], own: Math.floor(((parts - 1) * n) / parts), width: -1, out: null, waiting: idle.length };
  p.timer = setTimeout(() => finish(p), helperWait);
  farmed = p;
  for (const h of idle) {
    h.busy = true;
    h.first = Math.floor((h.part * n) / parts);
    h.last = Math.floor(((h.part + 1) * n) / parts);
    const range = pass.slice();
    range[3] = h.first;
    range[4] = h.last;
    send(h.port, range);
  }
  return p.own;
};

async function start() {
  if (!(module instanceof WebAssembly.Module)) throw new Error('the first message must be the compiled module');
  const go = new Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  self.privoptMemory = instance.exports.mem; // read by tests/scale.mjs: a WebAssembly memory never shrinks
  go.run(instance);
}

self.postMessage({ loaded: true });
