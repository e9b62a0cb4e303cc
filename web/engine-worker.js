// privopt's compute engine, in a Web Worker. Once its scripts are loaded it posts
// {loaded: true}: the page creates every worker while it loads, so that no script is fetched
// later. The page posts the compiled app.wasm module (and the demo's files, {module, demo}) as
// the first message when it first needs the worker; run in a worker, the module takes its engine role and calls
// privoptEngineStarted with the Go function that handles one message. Messages that arrive
// before then are queued.
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

self.privoptEngineStarted = (handle) => {
  self.onmessage = (event) => handle(event.data);
  for (const message of queued.splice(0)) handle(message);
};

async function start() {
  if (!(module instanceof WebAssembly.Module)) throw new Error('the first message must be the compiled module');
  const go = new Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  self.privoptMemory = instance.exports.mem; // read by tests/scale.mjs: a WebAssembly memory never shrinks
  go.run(instance);
}

self.postMessage({ loaded: true });
