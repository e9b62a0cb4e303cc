// privoptCreate(json) makes the nodes that privopt's renderer (wasm/render) describes, and
// returns them in pre-order: one call from Go for a whole subtree, where a call per node and
// per attribute would cost more than the nodes themselves. A tree is [type, data] for a text
// (type 1) or a comment (type 4), and [3, tag, namespace, attributes, properties, inner HTML or
// null, children] for an element (Vugu's node types), with attributes as [namespace, key,
// value] and properties as [key, JSON value].
'use strict';
window.privoptCreate = (json) => {
  const nodes = [];
  const create = (t) => {
    if (t[0] === 1) { nodes.push(document.createTextNode(t[1])); return nodes[nodes.length - 1]; }
    if (t[0] === 4) { nodes.push(document.createComment(t[1])); return nodes[nodes.length - 1]; }
    const [, tag, ns, attrs, props, inner, children] = t;
    const el = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    nodes.push(el);
    for (const [ans, key, value] of attrs) {
      if (ns) el.setAttributeNS(ans || null, key, value); else el.setAttribute(key, value);
    }
    for (const [key, value] of props) el[key] = JSON.parse(value);
    if (inner !== null) el.innerHTML = inner;
    for (const c of children) el.appendChild(create(c));
    return el;
  };
  create(JSON.parse(json));
  return nodes;
};
