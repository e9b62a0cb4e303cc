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
//
// In a cross-origin isolated page (the server sends Cross-Origin-Embedder-Policy and
// Cross-Origin-Opener-Policy, so SharedArrayBuffer exists), the ranges are shared queues
// instead: the run writes each pass into a SharedArrayBuffer that it posts to its helpers with
// every pass (a wake-up), each helper takes the chunks of its range from the front of its queue
// one at a time and writes their sums there, and the run, once its own range is done, takes
// the chunks left at the back (privoptSteal), so that a helper slowed by the machine's other
// work, or late to wake, never holds the pass up by more than a chunk. Its layout (shared):
//   queue: BigInt64Array(helpers), helper part's queue: tag·2⁴² + lo·2²¹ + hi, the chunks
//          [lo, hi) of the pass tag = seq mod 2²¹ not taken yet, changed by compare-exchange;
//   head:  Float64Array(6 + dim), the pass [seq, op, clip, width, chunks, rows, θ...];
//   sums:  Float64Array(chunks·(dim + 1)), chunk c's scalar then its vector at c·(dim + 1);
//   done:  Int32Array(chunks), 2·tag + 3 once a helper wrote chunk c's sums, 2·tag + 2 when it
//          could not compute them (never 0, a new memory's value).
// The run writes head before it sets the queues of a pass (Atomics.store), and a helper reads
// head after it took a chunk: a pass ends only when every chunk taken is done, so head holds
// the pass of every chunk taken. Each run has a memory of its own, and a new one when the tags
// wrap after 2²¹ passes, so that a done mark names one pass of the run; a helper of an
// earlier pass finds its queue empty (the run takes every chunk left before it ends a pass).
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

// The shared queues (see above): whether this page can share memory, the shared memory of the
// last run's link, the pass this worker helps, and the views of a shared memory
// ({shared, helpers, chunks, dim}).
const canShare = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
let shared = null;
let helping = null; // the shared pass this worker helps: {s (views), part, took, failed}
const field = (1n << 21n) - 1n;
const pack = (tag, lo, hi) => (BigInt(tag) << 42n) | (BigInt(lo) << 21n) | BigInt(hi);
const unpack = (w) => [Number(w >> 42n), Number((w >> 21n) & field), Number(w & field)];
const tagOf = (seq) => seq % 2097152;
function views({ shared: buffer, helpers, chunks, dim }) {
  const head = 8 * helpers;
  const sums = head + 8 * (6 + dim);
  const done = sums + 8 * chunks * (dim + 1);
  return {
    buffer, helpers, chunks, dim,
    queue: new BigInt64Array(buffer, 0, helpers),
    head: new Float64Array(buffer, head, 6 + dim),
    sums: new Float64Array(buffer, sums, chunks * (dim + 1)),
    done: new Int32Array(buffer, done, chunks),
  };
}
// takeBack takes the last chunk of queue i of the pass tag, or returns −1 when it has none.
function takeBack(queue, i, tag) {
  for (;;) {
    const w = Atomics.load(queue, i);
    const [t, lo, hi] = unpack(w);
    if (lo >= hi || t !== tag) return -1;
    if (Atomics.compareExchange(queue, i, w, pack(t, lo, hi - 1)) === w) return hi - 1;
  }
}

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
  // collect hands Go the sums the helpers wrote of the chunks they took from the shared queues
  // of pass p (none is left: the run took the rest), once they are done; a helper that takes
  // longer than helperWait, or could not compute a chunk, gets no range again.
  const collect = (p) => {
    if (farmed !== p) return;
    const s = shared;
    const out = new Float64Array(1 + p.own * (p.width + 2));
    out[0] = p.seq;
    const deadline = performance.now() + helperWait;
    for (const { h, first } of p.asked) {
      const lo = unpack(Atomics.load(s.queue, h.part))[1];
      for (let c = first; c < lo; c++) {
        let v = Atomics.load(s.done, c);
        while (v !== 2 * p.tag + 3 && v !== 2 * p.tag + 2) {
          const left = deadline - performance.now();
          if (left <= 0) break;
          Atomics.wait(s.done, c, v, left);
          v = Atomics.load(s.done, c);
        }
        if (v !== 2 * p.tag + 3) {
          h.ready = false;
          break;
        }
        const at = c * (s.dim + 1);
        out[1 + c] = 1;
        out[1 + p.own + c] = s.sums[at];
        out.set(s.sums.subarray(at + 1, at + 1 + p.width), 1 + 2 * p.own + c * p.width);
      }
    }
    p.out = out;
    finish(p);
  };
  self.privoptSteal = () => {
    const p = farmed;
    if (!p || !p.asked) return -1;
    for (;;) {
      let most = null;
      let left = 0;
      for (const a of p.asked) {
        const [t, lo, hi] = unpack(Atomics.load(shared.queue, a.h.part));
        if (t === p.tag && hi - lo > left) [most, left] = [a, hi - lo];
      }
      if (!most) break;
      const c = takeBack(shared.queue, most.h.part, p.tag);
      if (c >= 0) {
        self.privoptChunksStolen = (self.privoptChunksStolen || 0) + 1;
        return c;
      }
    }
    queueMicrotask(() => collect(p)); // once Go waits for the answer
    return -1;
  };
  // helpShared has Go compute the chunks this worker takes from the front of its shared queue,
  // as helper part: Go takes them in batches (privoptTake: [tag, first, count], null when none
  // is left, each a quarter of what is left, so that the last are small), reads the pass of a
  // batch (privoptHead) and hands back their sums (privoptDone), in one call (pass(−2)).
  const helpShared = (message, part) => {
    helping = { s: views(message), part, took: 0, failed: false };
    pass(-2, new Uint8Array(0));
    if (helping.took > 0) self.privoptRangesAnswered = (self.privoptRangesAnswered || 0) + 1;
  };
  self.privoptTake = () => {
    const { s, part, failed } = helping;
    if (failed || part >= s.helpers) return null;
    for (;;) {
      const w = Atomics.load(s.queue, part);
      const [t, lo, hi] = unpack(w);
      if (lo >= hi) return null;
      const k = Math.ceil((hi - lo) / 4);
      if (Atomics.compareExchange(s.queue, part, w, pack(t, lo + k, hi)) === w) return [t, lo, k];
    }
  };
  self.privoptHead = () => new Uint8Array(helping.s.head.slice().buffer);
  self.privoptDone = (tag, first, k, bytes) => {
    const s = helping.s;
    const a = floats(bytes);
    const width = s.head[3];
    const ok = tagOf(s.head[0]) === tag && a[0] === s.head[0] && a[1] === 1 && a.length === 2 + k * (width + 1);
    for (let i = 0; i < k; i++) {
      const c = first + i;
      if (ok) {
        s.sums[c * (s.dim + 1)] = a[2 + i];
        s.sums.set(a.subarray(2 + k + i * width, 2 + k + (i + 1) * width), c * (s.dim + 1) + 1);
      }
      Atomics.store(s.done, c, 2 * tag + (ok ? 3 : 2));
      Atomics.notify(s.done, c);
    }
    helping.took += ok ? k : 0;
    helping.failed = !ok;
  };
  const onMessage = (message) => {
    if (message && message.ports) {
      for (const h of helpers) h.port.close();
      shared = null; // a run's own shared memory: its done marks name its passes only
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
      let part = -1;
      port.onmessage = (e) => {
        // The ranges answered with their sums are counted for tests/workers.test.mjs.
        if (e.data instanceof Uint8Array) {
          if (answer(e.data)) self.privoptRangesAnswered = (self.privoptRangesAnswered || 0) + 1;
        } else if (e.data && e.data.shared instanceof SharedArrayBuffer && part >= 0) helpShared(e.data, part);
      };
      // Whether this worker helps, and as which part: its first message.
      const first = floats(pass(-1, new Uint8Array(0)));
      if (first[1] === 1) part = first[2];
      send(port, first);
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
  const parts = helpers.length + 1;
  if (canShare) return farmShared(pass, parts);
  const idle = helpers.filter((h) => h.ready && !h.busy);
  if (idle.length === 0) return 0;
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

// farmShared sets the shared queues of a pass (its ready helpers' ranges) and wakes the helpers
// (a message with the shared memory); the run then takes what they leave (privoptSteal).
function farmShared(pass, parts) {
  const ready = helpers.filter((h) => h.ready);
  if (ready.length === 0) return 0;
  const n = pass[4];
  const dim = pass.length - 6;
  // A new memory for a new run (privoptEngineStarted), for another shape, and when the tags
  // wrap: its zeros are no pass's done mark.
  if (!shared || shared.helpers < helpers.length || shared.chunks < n || shared.dim !== dim || tagOf(pass[0]) === 0) {
    const size = 8 * helpers.length + 8 * (6 + dim) + 8 * n * (dim + 1) + 4 * n;
    shared = views({ shared: new SharedArrayBuffer(size), helpers: helpers.length, chunks: n, dim });
  }
  const p = { seq: pass[0], tag: tagOf(pass[0]), own: Math.floor(((parts - 1) * n) / parts), width: pass[3], out: null, asked: [] };
  shared.head.set(pass);
  for (const h of ready) {
    const first = Math.floor((h.part * n) / parts);
    Atomics.store(shared.queue, h.part, pack(p.tag, first, Math.floor(((h.part + 1) * n) / parts)));
    p.asked.push({ h, first });
  }
  farmed = p;
  for (const { h } of p.asked) h.port.postMessage({ shared: shared.buffer, helpers: shared.helpers, chunks: shared.chunks, dim });
  return p.own;
}

async function start() {
  if (!(module instanceof WebAssembly.Module)) throw new Error('the first message must be the compiled module');
  const go = new Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  self.privoptMemory = instance.exports.mem; // read by tests/scale.mjs: a WebAssembly memory never shrinks
  go.run(instance);
}

self.postMessage({ loaded: true });
