// Starts privopt's page: compiles app.wasm (Go, run with wasm_exec.js) with compile.js's
// privoptCompile and runs it. The compiled module is kept in window.privoptWasmModule: the page
// hands it to the engine's Web Worker, which runs the same module in its engine role, so it is
// downloaded and compiled once.
// The page's renderer (wasm/render) creates nodes through web/render.js's privoptCreate.
'use strict';
(() => {
  function fail(err) {
    const mount = document.getElementById('app');
    if (mount) {
      mount.textContent = 'privopt could not start: ' + err;
      mount.className = 'fatal';
    }
  }

  // fetchDemo fetches the demo's files while the page loads, so that using the demo needs no
  // request later (they are not compiled into app.wasm, to keep it small); null when they
  // cannot be fetched, and the page then says so if the demo is asked for.
  async function fetchDemo() {
    try {
      const bytes = async (name) => {
        const response = await fetch('demo/' + name);
        if (!response.ok) throw new Error(name + ': HTTP ' + response.status);
        return new Uint8Array(await response.arrayBuffer());
      };
      const [train, test, schema] = await Promise.all(['adult-train.csv', 'adult-test.csv', 'adult-lr.schema.json'].map(bytes));
      return { train, test, schema };
    } catch (err) {
      return null;
    }
  }

  async function start() {
    if (typeof WebAssembly !== 'object') throw new Error('this browser does not support WebAssembly');
    const demo = fetchDemo();
    window.privoptWasmModule = await window.privoptCompile('app.wasm');
    window.privoptDemo = await demo;
    const go = new Go();
    const instance = await WebAssembly.instantiate(window.privoptWasmModule, go.importObject);
    go.run(instance);
  }

  // privoptPost posts a request to an engine worker (wasm/app's host calls it): the JSON
  // request, with the File it reads when there is one. A "help" request (help: its ID) gets a
  // new MessagePort, whose other end waits here for the run it helps; a run with helpers
  // (helpers: the IDs of their "help" requests) gets those ends. The run and its helpers then
  // talk over them (wasm/engine/farm.go), never through this thread.
  const ports = new Map();
  window.privoptPost = (worker, request, file, help, helpers) => {
    const message = { request };
    if (file) message.file = file;
    const transfer = [];
    if (help) {
      const channel = new MessageChannel();
      ports.set(help, channel.port1);
      message.port = channel.port2;
      transfer.push(channel.port2);
    }
    if (helpers.length) {
      message.ports = helpers.map((id) => ports.get(id)).filter(Boolean);
      for (const id of helpers) ports.delete(id);
      transfer.push(...message.ports);
    }
    worker.postMessage(message, transfer);
  };

  // Leaving the page (closing it, reloading it, following a link) loses a run under way and the
  // results shown, which nothing keeps but the page: while it shows either (its Cancel button,
  // or its results), the browser asks first.
  window.addEventListener('beforeunload', (event) => {
    if (document.querySelector('#cancel-button, #results')) event.preventDefault();
  });

  // A link to the curve widget alone (?embed=curve, which privopt documented before the widget
  // had a page of its own) goes to that page, with the same query, before app.wasm is fetched.
  if (new URLSearchParams(location.search).get('embed') === 'curve') {
    location.replace('widget.html' + location.search);
    return;
  }
  start().catch(fail);
})();
