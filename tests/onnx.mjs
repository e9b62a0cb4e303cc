// Helpers of the tests that run privopt's ONNX models in onnxruntime-node (tests/onnx.test.mjs
// with the command line's models, tests/app.test.mjs with the page's): the CSV files of these
// tests, the models' inputs for their rows, and the comparison of the models' outputs with
// privopt's predictions.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ort from 'onnxruntime-node';

// tolerance is the difference allowed between a probability (or value) of an ONNX model and
// privopt's: privopt promises 1e-6; a graph computed in double precision throughout is within
// 1e-15, and a step in float32 (such as a constant rounded to float32 by a graph optimization)
// would differ by about 1e-7, so the tests allow 1e-9.
export const tolerance = 1e-9;

// readCSV reads the CSV files of these tests (no quotes): the header's names and the rows'
// fields, with the spaces around each field removed, as privopt reads them.
export function readCSV(file) {
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes('"'), `${file}: this reader does not handle quoted fields`);
  const [header, ...rows] = text.split(/\r?\n/).filter((l) => l.trim() !== '').map((l) => l.split(',').map((f) => f.trim()));
  return { header, rows };
}

// feeds returns the model's inputs for the rows of a CSV file: one [N, 1] tensor per numeric
// (double, NaN when missing) or categorical (string) column of the schema.
export function feeds(schema, { header, rows }) {
  const out = {};
  for (const c of schema.columns) {
    const j = header.indexOf(c.name);
    if (c.kind === 'numeric') {
      const v = Float64Array.from(rows, (r) => (r[j] === '' || r[j] === '?' ? NaN : Number(r[j])));
      out[c.name] = new ort.Tensor('float64', v, [rows.length, 1]);
    } else if (c.kind === 'categorical') {
      out[c.name] = new ort.Tensor('string', rows.map((r) => r[j]), [rows.length, 1]);
    }
  }
  return out;
}

// maxDifference compares a session's outputs with privopt's predictions of the same rows (a
// CSV file read by readCSV: the label and one probability per class, or the value): it
// requires the same labels and returns the largest difference of a probability or a value.
export function maxDifference(got, want) {
  let max = 0;
  if (got.value) {
    for (const [i, row] of want.rows.entries()) max = Math.max(max, Math.abs(got.value.data[i] - Number(row[0])));
    return max;
  }
  const k = want.header.length - 1; // the number of probabilities
  for (const [i, row] of want.rows.entries()) {
    assert.equal(got.label.data[i], row[0], `row ${i + 1}: label`);
    for (let c = 0; c < k; c++) max = Math.max(max, Math.abs(got.probabilities.data[i * k + c] - Number(row[c + 1])));
  }
  return max;
}
