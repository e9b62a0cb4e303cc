//go:build demofetched && js

package demo

import (
	"errors"
	"sync"
	"syscall/js"
)

var errMissing = errors.New("the demo data could not be loaded with the page (its files demo/adult-train.csv, demo/adult-test.csv and demo/adult-lr.schema.json are missing from the site): reload the page, or open a CSV file of your own")

// files returns the files the page fetched while it loaded (web/boot.js; a worker receives
// them with the compiled module): the global privoptDemo's train, test and schema bytes,
// copied once; empty when the page could not fetch them.
var files = sync.OnceValue(func() demoFiles {
	d := js.Global().Get("privoptDemo")
	if d.IsUndefined() || d.IsNull() {
		return demoFiles{}
	}
	get := func(name string) []byte {
		v := d.Get(name)
		if v.IsUndefined() || v.IsNull() {
			return nil
		}
		b := make([]byte, v.Get("length").Int())
		js.CopyBytesToGo(b, v)
		return b
	}
	return demoFiles{get("train"), get("test"), get("schema")}
})
