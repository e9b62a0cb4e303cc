// privoptCompile(url) fetches a WebAssembly module and compiles it, while it downloads when
// the server sends the application/wasm type (some static hosts omit it). The app's boot.js
// and the curve widget's widget.js both use it.
'use strict';
window.privoptCompile = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(url + ': HTTP ' + response.status);
  if ((response.headers.get('Content-Type') || '').startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
};
