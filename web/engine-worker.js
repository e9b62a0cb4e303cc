// privopt's compute engine, in a Web Worker. Once its scripts are loaded it posts
// {loaded: true}: the page creates every worker while it loads, so that no script is fetched
// later. The page posts the compiled app.wasm module (and the demo's files, {module, demo}) as
// the first message when it first needs the worker; run in a worker, the module takes its
// engine role and calls privoptEngineStarted with the Go function that handles one message,
// and the one that takes the messages between a run and its helpers (pass). Messages that
// arrive before then are queued.
//
// A run can farm its passes out to helpers, other engine workers (wasm/engine/farm.go): the
// page posts a "help" request with a MessagePort ({request, port}) and the run with the
// other ends ({request, ports}); the ports carry the run's ranges and the helpers' sums as
// Uint8Arrays of float64s, from worker to worker, never through the page.
'use strict';
importScripts('wasm_exec.js');

let module = null;
const queued = [];
let runPorts = []; // the ports of the last run's helpers, in order
let helpPort = null; // the port of the run this worker helps

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

self.privoptEngineStarted = (handle, pass) => {
  const onMessage = (message) => {
    if (message && message.ports) {
      for (const port of runPorts) port.close();
      runPorts = message.ports;
      runPorts.forEach((port, i) => { port.onmessage = (e) => pass(i, e.data); });
    }
    handle(message);
    if (message && message.port) {
      if (helpPort) helpPort.close();
      const port = message.port;
      helpPort = port;
      const answer = (bytes) => {
        const out = pass(-1, bytes);
        port.postMessage(out, [out.buffer]);
      };
      port.onmessage = (e) => {
        answer(e.data);
        self.privoptRangesAnswered = (self.privoptRangesAnswered || 0) + 1; // read by tests/workers.test.mjs
      };
      answer(new Uint8Array(0)); // whether this worker helps: its first message
    }
  };
  self.onmessage = (event) => onMessage(event.data);
  for (const message of queued.splice(0)) onMessage(message);
};

// privoptPost posts a run's message to its helper i (Go calls it).
self.privoptPost = (i, bytes) => {
  if (runPorts[i]) runPorts[i].postMessage(bytes, [bytes.buffer]);
};

async function start() {
  if (!(module instanceof WebAssembly.Module)) throw new Error('the first message must be the compiled module');
  const go = new Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  self.privoptMemory = instance.exports.mem; // read by tests/scale.mjs: a WebAssembly memory never shrinks
  go.run(instance);
}

self.postMessage({ loaded: true });
