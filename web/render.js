// privoptCreate(json) makes the nodes that privopt's renderer (wasm/render) describes, and
// returns them in pre-order: one call from Go for a whole subtree, where a call per node and
// per attribute would cost more than the nodes themselves. A tree (wasm/render's Tree) is
// {t: 1, d} for a text, {t: 4, d} for a comment, and {t: 3, g: tag, n: namespace, a:
// [[namespace, key, value]...], p: [[key, JSON value]...], h: inner HTML, c: [children]} for an
// element (Vugu's node types), absent members empty.
'use strict';
window.privoptCreate = (json) => {
  const nodes = [];
  const create = (t) => {
    if (t.t === 1) { nodes.push(document.createTextNode(t.d || '')); return nodes[nodes.length - 1]; }
    if (t.t === 4) { nodes.push(document.createComment(t.d || '')); return nodes[nodes.length - 1]; }
    const el = t.n ? document.createElementNS(t.n, t.g) : document.createElement(t.g);
    nodes.push(el);
    for (const [ns, key, value] of t.a || []) {
      if (t.n) el.setAttributeNS(ns || null, key, value); else el.setAttribute(key, value);
    }
    for (const [key, value] of t.p || []) el[key] = JSON.parse(value);
    if (t.h !== undefined) el.innerHTML = t.h;
    for (const c of t.c || []) el.appendChild(create(c));
    return el;
  };
  create(JSON.parse(json));
  return nodes;
};
