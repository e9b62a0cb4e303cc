// Starts the light privacy-curve widget (widget.html): compiles widget.wasm (Go, run with
// wasm_exec.js; wasm/widget), which fills in the page's fields, numbers and plots and keeps
// them up to date as the fields are typed in. Nothing is requested after that.
'use strict';
(() => {
  async function start() {
    if (typeof WebAssembly !== 'object') throw new Error('this browser does not support WebAssembly');
    const go = new Go();
    const module = await window.privoptCompile('widget.wasm');
    go.run(await WebAssembly.instantiate(module, go.importObject));
  }

  start().catch((err) => {
    const problem = document.getElementById('curve-problem');
    problem.textContent = 'The widget could not start: ' + err;
    problem.className = 'fatal';
  });
})();
