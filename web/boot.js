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

  // A link to the curve widget alone (?embed=curve, which privopt documented before the widget
  // had a page of its own) goes to that page, with the same query, before app.wasm is fetched.
  if (new URLSearchParams(location.search).get('embed') === 'curve') {
    location.replace('widget.html' + location.search);
    return;
  }
  start().catch(fail);
})();
