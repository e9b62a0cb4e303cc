#!/usr/bin/env bash
# privopt's build and test driver. Run ./build.sh help for the commands.
#
# On a fresh Debian machine, `test` installs what it needs: Chromium with apt-get (as root)
# and the browser-test tools with `npm ci` in tests/. Nothing is installed globally by npm.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

DIST="$ROOT/dist"
WORKER="$ROOT/wasm/cfworker"
CHROMIUM="${PRIVOPT_CHROMIUM:-/usr/bin/chromium}"

say() { printf '%s\n' "$*"; }
die() { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

usage() {
	cat <<'EOF'
Usage: ./build.sh COMMAND [args]

Commands:
  build            generate the Vugu code and build the page into dist/ (app.wasm holds
                   both the page and the engine that runs in a Web Worker; widget.wasm is
                   the light curve widget, widget.html); prints the wasm sizes and budgets
  serve [ARGS]     build, then serve dist/ on http://127.0.0.1:8080
                   (ARGS go to `privopt serve`, e.g. --addr 127.0.0.1:9000; PORT=9000 works too)
  site             build, then finish dist/ as a static site for any host: FILE.gz and FILE.br
                   beside each compressible file, _headers (the security headers) and
                   .assetsignore (for Cloudflare)
  worker [ARGS]    site, then run the Cloudflare Worker (wasm/cfworker) locally with wrangler on
                   http://127.0.0.1:8787 (PORT=9000 for another port; ARGS go to `wrangler dev`);
                   installs wrangler with npm ci in wasm/cfworker/ and prints the upload size
  worker-size      the Worker's upload size, from `wrangler deploy --dry-run` (no account needed);
                   fails above the free plan's 3 MB compressed
  worker-build     build the Worker into wasm/cfworker/build/ (wrangler runs it before dev and deploy)
  bench [ARGS]     the adult-lr benchmark natively, in WebAssembly (node) and, for the times,
                   in Chromium through the page's engine: writes
                   internal/bench/results/ (results.md, native.json, wasm.json,
                   chromium.json and accuracy.svg; ARGS go to `privopt bench`, e.g.
                   --mech noisy-gd --eps 1: the cells run replace theirs, the rest stay)
  bench --suite devsuite [ARGS]
                   the development suite (../shared/data/devsuite; --devsuite DIR for another
                   folder), natively only: privopt's default fit on every task at each ε,
                   measured on validation rows split from the training files (never the test
                   files), beside the baselines; writes docs/benchmarks/devsuite.md and
                   devsuite.svg, or with --mech NAME devsuite-NAME.md and .svg (ARGS go
                   to `privopt bench`, e.g. --runs 3 --eps 1,8)
  bench --scale [N…]
                   the scale benchmark: synthetic CSVs of N rows × 20 columns (10,000 to
                   10,000,000 by default, kept in tests/.scale/), one noisy-gd fit of each
                   natively and in the page in headless Chromium, with the time and peak memory
                   of each; writes docs/benchmarks/scale.md
  bench --scale-numeric [N…]
                   the same with 20 numeric columns and no categorical ones (rows held
                   dense); writes docs/benchmarks/scale-numeric.md
  bench --scale-float32 [N…]
                   the same with the values held as float32 (privopt fit --float32, the
                   page's f32=1); writes docs/benchmarks/scale-float32.md
  bench --workers [N…]
                   the same for N rows (1,000,000 by default), with the page's fit measured
                   with 1, 2, 2 and 1 engine workers (one run, the second worker helping it),
                   and the machine's load; writes docs/benchmarks/workers.md
  wasm-sizes [OTHER.wasm]
                   build, then list the functions of app.wasm that take the most, raw and
                   compressed (internal/build/wasmsize), from a copy built with its names
                   (tests/.bin/app-named.wasm); with OTHER.wasm (such a copy of another
                   revision) the functions whose sizes changed since it
  test             every test: gofmt, go vet, Go tests natively and under js/wasm (node),
                   privopt export's ONNX models in onnxruntime-node, the browser tests in
                   headless Chromium and the Worker's tests in wrangler; installs what is missing
  help             this text
EOF
}

# --- prerequisites ------------------------------------------------------------------------

need_go() {
	command -v go >/dev/null 2>&1 || die "Go 1.26 or newer is required (https://go.dev/dl); it was not found on PATH"
	local v
	v=$(go env GOVERSION)
	case "$v" in
	go1.2[6-9]* | go1.[3-9][0-9]* | go[2-9]*) ;;
	*) die "Go 1.26 or newer is required; found $v" ;;
	esac
}

apt_install() {
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		return 1
	fi
	say "build.sh: installing $* with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

need_node() {
	if ! command -v node >/dev/null 2>&1; then
		apt_install nodejs npm || die "Node.js 20 or newer is required for the tests; install it (https://nodejs.org) and retry"
	fi
	local major
	major=$(node -p 'process.versions.node.split(".")[0]')
	[ "$major" -ge 20 ] || die "Node.js 20 or newer is required for the tests (playwright-core needs it); found $(node --version): install it from https://nodejs.org"
	command -v npm >/dev/null 2>&1 || apt_install npm || die "npm is required for the tests; install it and retry"
}

need_chromium() {
	if [ ! -x "$CHROMIUM" ]; then
		apt_install chromium || die "Chromium is required at $CHROMIUM for the browser tests: run 'sudo apt-get install chromium' (Debian) or set PRIVOPT_CHROMIUM to a Chromium binary"
	fi
	[ -x "$CHROMIUM" ] || die "Chromium was not found at $CHROMIUM after installing it; set PRIVOPT_CHROMIUM"
}

need_test_tools() {
	need_node
	need_chromium
	# npm ci installs exactly the locked versions (playwright-core, no browser download;
	# onnxruntime-node, whose CUDA download tests/.npmrc skips: its CPU binaries are bundled).
	if [ ! -f tests/node_modules/.package-lock.json ] || [ tests/package-lock.json -nt tests/node_modules/.package-lock.json ]; then
		say "build.sh: installing the browser-test tools (npm ci in tests/)"
		(cd tests && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) ||
			die "npm ci in tests/ failed; check that the npm registry is reachable"
	fi
}

# --- build --------------------------------------------------------------------------------

gen_files() { find ui -name '*_gen.go' -print0 | sort -z | xargs -0 -r sha256sum; }

# generate runs vugugen on the templates of ui/ without their layout whitespace
# (internal/build/vugutrim), makes the generated code's constant attribute lists package
# variables and each node it appends one call (internal/build/vugustatic: 5.1 and 8.6 kB less of
# the page's compressed WebAssembly),
# writes ui/*_gen.go from them, and reports whether that changed the committed files.
GENERATED_CHANGED=0
generate() {
	local before after tmp f
	before=$(gen_files)
	tmp=$(mktemp -d)
	go run ./internal/build/vugutrim ui "$tmp"
	printf 'package ui\n' >"$tmp/doc.go" # the package of the generated files
	go tool vugugen -skip-go-mod -skip-main "$tmp"
	go run ./internal/build/vugustatic "$tmp"
	for f in "$tmp"/*_gen.go; do
		[ "$(basename "$f")" = 0_missing_gen.go ] || cp "$f" ui/ # 0_missing_gen.go declares the components' types, which ui/ has
	done
	rm -rf "$tmp"
	after=$(gen_files)
	if [ "$before" != "$after" ]; then
		GENERATED_CHANGED=1
		say "build.sh: regenerated ui/*_gen.go from the .vugu files: commit them"
	fi
}

build() {
	need_go
	generate
	rm -rf "$DIST"
	mkdir -p "$DIST"
	# The packages no fit spends its time in (the UI and Vugu's DOM-building code, the engine's
	# glue, planning, the release file and its exports, fmt, reflect and encoding/json, which
	# carry the messages, and syscall/js) are compiled without inlining, and so are the
	# mechanisms, the encoder, the privacy accounting, the plots, math/big (the exact noise
	# samplers' arithmetic) and sort: app.wasm was then 1,985,741 bytes (gzip) against 2,024,000
	# or so with only the first group so compiled, and a noisy-gd fit of adult-lr in node
	# (parsing included) takes the same time either way (1.13-1.25 s at ε = 1; 1.47-1.73 s at
	# ε = 8, 3 runs each, with and without math/big and sort). pkg/core/geom (the domains, norms
	# and regularizers, whose work is per step, never per row) too: 6.3 kB less gzip, and the
	# same times in node (noisy-gd at ε = 1 0.65-0.70 s against 0.72-1.41 s, REM's kinetic mode
	# 0.37-0.59 against 0.38-0.47 s, rem-lp 0.99-1.08 against 1.09-1.45 s, 3 runs each, the same
	# bits); syscall/js, about 2 kB; and encoding/csv (the preview and the scores' CSV; the
	# data's own reader is pkg/core/data's), 1.6 kB; strings and bytes, 4.6 kB (calls into them
	# from other packages still inline). The compute packages (pkg/core/loss, solve,
	# pkg/sampler, pkg/rng, gonum, math, strconv, the runtime) keep the compiler's defaults.
	local noinline=(github.com/privopt/privopt/ui/... github.com/privopt/privopt/internal/...
		github.com/privopt/privopt/wasm/... github.com/vugu/... google.golang.org/protobuf/...
		fmt reflect encoding/json html log time syscall/js
		github.com/privopt/privopt/pkg/core/mech/... github.com/privopt/privopt/pkg/core/data/...
		github.com/privopt/privopt/pkg/core/privacy/... github.com/privopt/privopt/pkg/plot/...
		github.com/privopt/privopt/pkg/core/geom/... math/big sort encoding/csv strings bytes)
	# The revision is set here, not read from the toolchain's record (internal/version).
	local rev
	rev=$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || true)
	if [ -n "$rev" ] && [ -n "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]; then rev="$rev+modified"; fi
	local wasmflags=(-trimpath "-ldflags=-s -w -X github.com/privopt/privopt/internal/version.rev=$rev") p
	for p in "${noinline[@]}"; do wasmflags+=("-gcflags=$p=-l"); done
	# The demo's files are fetched by the page while it loads (web/boot.js), not compiled in.
	GOOS=js GOARCH=wasm go build -tags demofetched "${wasmflags[@]}" -o "$DIST/app.wasm" ./wasm/app
	if [ -n "${APP_WASM_NAMED:-}" ]; then # wasm-sizes: the same module with its function names
		wasmflags[1]="-ldflags=-X github.com/privopt/privopt/internal/version.rev=$rev"
		GOOS=js GOARCH=wasm go build -tags demofetched "${wasmflags[@]}" -o "$APP_WASM_NAMED" ./wasm/app
	fi
	# The light curve widget (widget.html) links the privacy accounting and the plots, and no
	# fmt, reflect, embed, Vugu or engine. Go's runtime is most of it: a program of syscall/js,
	# strconv and math alone is 564,199 bytes (gzip) built like this. Compiling the runtime
	# without inlining takes 28 kB off the widget's gzip (657,677 to 630,125 bytes; raw it grows
	# from 2,217,835 to 2,361,854); on the other packages it changes the size by less than 1 kB.
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -gcflags=runtime=-l -o "$DIST/widget.wasm" ./wasm/widget
	mkdir -p "$DIST/demo"
	cp internal/demo/adult-train.csv internal/demo/adult-test.csv internal/demo/adult-lr.schema.json "$DIST/demo/"
	cp index.html widget.html "$DIST/"
	cp web/*.js web/*.css pkg/plot/svgfile/plot.css "$DIST/"
	cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$DIST/"
	APP_WASM_GZIP=$(wasm_size app.wasm "$APP_WASM_BUDGET")
	WIDGET_WASM_GZIP=$(wasm_size widget.wasm "$WIDGET_WASM_BUDGET")
	say "build.sh: built the page into dist/"
}

# APP_WASM_BUDGET is the bound on the page's compressed WebAssembly (docs/benchmarks.md's
# targets): 2,000,000 bytes until the floating-point-safe REM sampler added 37 kB (math/big's
# Float, pkg/interval and the sampler: 1,995,976 → 2,037,089 bytes on 2026-11-26), then
# 2,050,000; since its cover of boxes and of the hinge, multinomial and robust losses (20 kB
# more), 2 MiB, DESIGN.md's "2 MB" read as 2²¹ bytes. WIDGET_WASM_BUDGET bounds the light curve widget's: its size when it was
# made (630,125 bytes gzip with Go 1.26.8) and 1.6 % more, so that a change that links fmt
# (about 200 kB) or the embed package (50 kB) into it fails the build's check.
APP_WASM_BUDGET=2097152
WIDGET_WASM_BUDGET=640000
APP_WASM_GZIP=0
WIDGET_WASM_GZIP=0

# wasm_size prints dist/NAME's raw and gzip sizes and its budget to stderr, and its gzip size
# to stdout.
wasm_size() {
	local raw gz
	raw=$(stat -c %s "$DIST/$1")
	gz=$(gzip -9 -c "$DIST/$1" | wc -c)
	printf 'build.sh: %-12s %9d bytes raw %9d bytes gzip (budget: at most %d bytes gzip)\n' "$1" "$raw" "$gz" "$2" >&2
	printf '%d\n' "$gz"
}

# check_wasm_size fails when the page's or the widget's wasm exceeds its budget (a size, not a
# time: it does not depend on the machine).
check_wasm_size() {
	local status=0
	if [ "$APP_WASM_GZIP" -gt "$APP_WASM_BUDGET" ]; then
		say "build.sh: app.wasm is $APP_WASM_GZIP bytes gzip, over its budget of $APP_WASM_BUDGET"
		status=1
	fi
	if [ "$WIDGET_WASM_GZIP" -gt "$WIDGET_WASM_BUDGET" ]; then
		say "build.sh: widget.wasm is $WIDGET_WASM_GZIP bytes gzip, over its budget of $WIDGET_WASM_BUDGET"
		status=1
	fi
	return $status
}

serve() {
	build
	exec go run ./cmd/privopt serve --dir "$DIST" "$@"
}

site() {
	build
	go run ./internal/build/staticsite "$DIST"
	say "build.sh: dist/ is a static site: copy it to any static host (docs/deploying.md)"
}

# --- Cloudflare Worker --------------------------------------------------------------------

need_worker_tools() {
	need_node
	# npm ci installs exactly the locked wrangler (4.86.0: the last release that runs on node 20).
	if [ ! -f "$WORKER/node_modules/.package-lock.json" ] || [ "$WORKER/package-lock.json" -nt "$WORKER/node_modules/.package-lock.json" ]; then
		say "build.sh: installing wrangler (npm ci in wasm/cfworker/)"
		(cd "$WORKER" && npm ci --no-audit --no-fund --loglevel=error) ||
			die "npm ci in wasm/cfworker/ failed; check that the npm registry is reachable"
	fi
}

# wrangler runs the locked wrangler in wasm/cfworker/, without telemetry or prompts.
wrangler() {
	(cd "$WORKER" && WRANGLER_SEND_METRICS=false CI=1 ./node_modules/.bin/wrangler "$@")
}

# worker_build is wrangler's build command (wasm/cfworker/wrangler.jsonc): syumai/workers'
# JavaScript glue and the Go Worker compiled to WebAssembly, in wasm/cfworker/build/.
worker_build() {
	need_go
	go run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o "$WORKER/build"
	GOOS=js GOARCH=wasm go build -trimpath -ldflags='-s -w' -o "$WORKER/build/app.wasm" ./wasm/cfworker
}

# WORKER_LIMIT_BYTES is the free plan's limit on a Worker's compressed upload: 3 MB.
WORKER_LIMIT_BYTES=3000000

worker_size() {
	need_worker_tools
	[ -f "$DIST/_headers" ] || die "dist/ is not a built site: run ./build.sh site first"
	local out line kib
	out=$(wrangler deploy --dry-run --outdir "$WORKER/.wrangler/dry-run" 2>&1) || {
		say "$out"
		die "wrangler deploy --dry-run failed"
	}
	# wrangler prints "Total Upload: 3986.27 KiB / gzip: 1262.69 KiB".
	line=$(printf '%s\n' "$out" | grep -o 'Total Upload: .*') || {
		say "$out"
		die "wrangler deploy --dry-run did not print the upload size"
	}
	kib=$(printf '%s\n' "$line" | sed -n 's/.*gzip: \([0-9.]*\) KiB.*/\1/p')
	[ -n "$kib" ] || die "cannot read the compressed size in: $line"
	say "build.sh: Worker upload (wrangler deploy --dry-run): ${line#Total Upload: } (limit of the free plan: 3 MB compressed)"
	awk -v kib="$kib" -v limit="$WORKER_LIMIT_BYTES" 'BEGIN { exit !(kib * 1024 < limit) }' ||
		die "the Worker's compressed upload, $kib KiB, exceeds the free plan's 3 MB"
}

worker() {
	site
	need_worker_tools
	worker_size
	local port=${PORT:-8787}
	say "build.sh: running the Worker on http://127.0.0.1:$port/ (Ctrl-C stops it)"
	cd "$WORKER"
	WRANGLER_SEND_METRICS=false CI=1 exec ./node_modules/.bin/wrangler dev --ip 127.0.0.1 --port "$port" "$@"
}

# --- bench --------------------------------------------------------------------------------

bench() {
	need_go
	need_test_tools
	local out=internal/bench/results
	# Everything is written to a scratch directory first and copied into $out at the end, so an
	# interrupted run leaves the committed results as they were (they must agree with each other).
	local tmp
	tmp=$(mktemp -d)
	mkdir -p tests/.bin
	go build -o tests/.bin/privopt ./cmd/privopt
	GOOS=js GOARCH=wasm go build -o tests/.bin/privopt.wasm ./cmd/privopt
	say "build.sh: the benchmark, natively"
	tests/.bin/privopt bench --json "$tmp/native.json" "$@"
	say "build.sh: the benchmark, in WebAssembly (node)"
	"$(go env GOROOT)/lib/wasm/go_js_wasm_exec" tests/.bin/privopt.wasm bench --json "$tmp/wasm.json" "$@"
	say "build.sh: the private fits in Chromium, through the page's engine"
	build
	PRIVOPT_BIN="$ROOT/tests/.bin/privopt" PRIVOPT_DIST="$DIST" PRIVOPT_CHROMIUM="$CHROMIUM" \
		node tests/bench-chromium.mjs "$tmp/native.json" "$ROOT/testdata/adult/adult.data" \
		examples/adult-lr.schema.json "$tmp/chromium.json" 3 60
	# The cells run (all of them, or those that ARGS select) replace their rows in the committed
	# results; the other rows are kept.
	local f
	for f in native wasm chromium; do
		if [ -f "$out/$f.json" ]; then
			tests/.bin/privopt bench --replace --json "$tmp/$f.all.json" "$out/$f.json" "$tmp/$f.json"
			mv "$tmp/$f.all.json" "$tmp/$f.json"
		fi
	done
	tests/.bin/privopt bench --svg "$tmp/accuracy.svg" --merge "$tmp/native.json" "$tmp/wasm.json" "$tmp/chromium.json" >"$tmp/results.md"
	cp "$tmp"/native.json "$tmp"/wasm.json "$tmp"/chromium.json "$tmp"/accuracy.svg "$tmp"/results.md "$out/"
	rm -rf "$tmp"
	say "build.sh: wrote $out/ (the page's About view embeds its JSON: rebuild the page)"
	cat "$out/results.md"
}

# devsuite_asked reports whether bench's arguments select the development suite
# (--suite devsuite or --suite=devsuite).
devsuite_asked() {
	local prev="" a
	for a in "$@"; do
		case "$prev $a" in
		"--suite devsuite" | "-suite devsuite" | *" --suite=devsuite" | *" -suite=devsuite") return 0 ;;
		esac
		prev=$a
	done
	return 1
}

# bench_devsuite runs the development suite natively (ARGS go to `privopt bench`, which holds
# --suite devsuite) and writes docs/benchmarks/devsuite.md, the table under a header saying
# what was run, and devsuite.svg; with --mech NAME[:SETTINGS], devsuite-NAME.md and .svg. Both
# are written to a scratch directory first and copied at the end, so an interrupted run leaves
# the committed files as they were.
bench_devsuite() {
	need_go
	local out=docs/benchmarks tmp commit name=devsuite prev=""
	for a in "$@"; do
		case "$prev" in --mech | -mech) name="devsuite-${a%%:*}" ;; esac
		case "$a" in --mech=* | -mech=*) name="devsuite-${a#*=}" name=${name%%:*} ;; esac
		prev=$a
	done
	tmp=$(mktemp -d)
	go build -o "$tmp/privopt" ./cmd/privopt
	commit=$(git rev-parse --short HEAD)
	git diff --quiet HEAD -- || commit="$commit with uncommitted changes"
	say "build.sh: the development suite, natively"
	"$tmp/privopt" bench "$@" --svg "$tmp/$name.svg" >"$tmp/table.md"
	{
		printf '# privopt on the development suite\n\n'
		printf 'Written by `./build.sh bench %s` at commit %s, %s.\n\n' "$*" "$commit" "$(date -u '+%Y-%m-%d %H:%M UTC')"
		cat "$tmp/table.md"
		printf '\n![privopt against the baselines, one panel per task](%s.svg)\n' "$name"
	} >"$tmp/$name.md"
	mkdir -p "$out"
	cp "$tmp/$name.md" "$tmp/$name.svg" "$out/"
	rm -rf "$tmp"
	say "build.sh: wrote $out/$name.md and $out/$name.svg"
	cat "$out/$name.md"
}

# scale_asked reports whether bench's first argument is --scale.
scale_asked() { [ "${1:-}" = --scale ] || [ "${1:-}" = -scale ]; }

# scale_numeric_asked reports whether bench's first argument is --scale-numeric.
scale_numeric_asked() { [ "${1:-}" = --scale-numeric ] || [ "${1:-}" = -scale-numeric ]; }

# scale_float32_asked reports whether bench's first argument is --scale-float32.
scale_float32_asked() { [ "${1:-}" = --scale-float32 ] || [ "${1:-}" = -scale-float32 ]; }

# workers_asked reports whether bench's first argument is --workers.
workers_asked() { [ "${1:-}" = --workers ] || [ "${1:-}" = -workers ]; }

# bench_scale runs tests/scale.mjs (the fit time and peak memory against the number of rows,
# natively and in the page) for the sizes in ARGS (after --scale), and writes
# docs/benchmarks/scale.md; the generated files stay in tests/.scale/ for the next run. The
# report is written to a scratch file first and copied at the end, so an interrupted run
# leaves the committed one as it was.
bench_scale() {
	shift
	scale_report docs/benchmarks/scale.md "$@"
}

# bench_scale_numeric is bench_scale on files of 20 numeric columns (rows held dense), and
# writes docs/benchmarks/scale-numeric.md.
bench_scale_numeric() {
	shift
	PRIVOPT_SCALE_COLUMNS=20,0 scale_report docs/benchmarks/scale-numeric.md "$@"
}

# bench_scale_float32 is bench_scale_numeric with the values held as float32, and writes
# docs/benchmarks/scale-float32.md.
bench_scale_float32() {
	shift
	PRIVOPT_SCALE_COLUMNS=20,0 PRIVOPT_SCALE_FLOAT32=1 scale_report docs/benchmarks/scale-float32.md "$@"
}

# bench_workers runs tests/scale.mjs with the page's fit measured with 1, 2, 2 and 1 engine
# workers (one run, helped by the second worker: wasm/engine/farm.go; in this order, so that a
# load that grows or falls during the run weighs on both alike; PRIVOPT_SCALE_WORKERS sets
# another) for the sizes in ARGS (after --workers; 1,000,000 rows by default), and writes
# docs/benchmarks/workers.md.
bench_workers() {
	shift
	[ $# -gt 0 ] || set -- 1000000
	PRIVOPT_SCALE_WORKERS="${PRIVOPT_SCALE_WORKERS:-1 2 2 1}" scale_report docs/benchmarks/workers.md "$@"
}

# scale_report runs tests/scale.mjs for the sizes in ARGS after OUT and writes its report to OUT.
scale_report() {
	local out=$1
	shift
	need_go
	need_test_tools
	build
	mkdir -p tests/.bin tests/.scale
	go build -o tests/.bin/privopt ./cmd/privopt
	go build -o tests/.bin/scale ./internal/bench/scale
	local tmp
	tmp=$(mktemp)
	PRIVOPT_BIN="$ROOT/tests/.bin/privopt" PRIVOPT_SCALE="$ROOT/tests/.bin/scale" PRIVOPT_DIST="$DIST" \
		PRIVOPT_CHROMIUM="$CHROMIUM" node tests/scale.mjs "$tmp" "$ROOT/tests/.scale" "$@"
	mkdir -p docs/benchmarks
	mv "$tmp" "$out"
	say "build.sh: wrote $out"
}

# --- test ---------------------------------------------------------------------------------

STEP=""
STEPS_DONE=0
TEST_START=$SECONDS

step() {
	STEP=$1
	shift
	local t0=$SECONDS
	say ""
	say "=== $STEP"
	"$@"
	STEPS_DONE=$((STEPS_DONE + 1))
	say "--- $STEP: ok ($((SECONDS - t0))s)"
}

check_format() {
	local files bad
	files=$(find . -name '*.go' -not -name '*_gen.go' -not -path './tests/node_modules/*' -not -path './dist/*' -not -path './build/*' -not -path './wasm/cfworker/node_modules/*')
	bad=$(printf '%s\n' "$files" | xargs gofmt -l)
	if [ -n "$bad" ]; then
		say "gofmt would change these files (run gofmt -w):"
		say "$bad"
		return 1
	fi
}

check_generated() {
	generate
	if [ "$GENERATED_CHANGED" = 1 ] && [ "${CI:-}" = true ]; then
		say "ui/*_gen.go did not match the .vugu files: run ./build.sh build and commit the result"
		return 1
	fi
}

vet() {
	go vet ./...
	GOOS=js GOARCH=wasm go vet ./...
}

go_test_native() { go test ./...; }

go_test_wasm() {
	need_node
	# The engine and what it uses run in WebAssembly in the browser, and so does the curve
	# widget (internal/curves); internal/accounting and internal/api in the Cloudflare Worker.
	# pkg/audit's privacy audits run natively only: they test the mechanisms' distributions,
	# whose bits are the same in both (the determinism tests check that), at a cost of minutes.
	local pkgs
	pkgs=$(go list ./pkg/... | grep -v '/pkg/audit$')
	# shellcheck disable=SC2086 # one package per word
	GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" $pkgs ./ui/... ./wasm/engine/... ./internal/curves/... \
		./internal/accounting/... ./internal/api/... ./internal/fit/... ./internal/demo/...
}

# node_tests runs test files with the environment tests/lib.mjs reads.
node_tests() {
	mkdir -p tests/.bin tests/artifacts
	go build -o tests/.bin/privopt ./cmd/privopt
	PRIVOPT_BIN="$ROOT/tests/.bin/privopt" PRIVOPT_DIST="$DIST" PRIVOPT_CHROMIUM="$CHROMIUM" \
		PRIVOPT_WORKER="$WORKER" PRIVOPT_ARTIFACTS="$ROOT/tests/artifacts" node --test --test-concurrency=1 "$@"
}

browser_tests() {
	need_test_tools
	local files=() f
	for f in tests/*.test.mjs; do
		case "$f" in tests/worker.test.mjs | tests/onnx.test.mjs) ;; *) files+=("$f") ;; esac
	done
	node_tests "${files[@]}"
}

# onnx_tests runs privopt export's models in onnxruntime-node against privopt predict.
onnx_tests() {
	need_test_tools
	node_tests tests/onnx.test.mjs
}

worker_tests() {
	need_test_tools
	need_worker_tools
	worker_size
	node_tests tests/worker.test.mjs
}

run_tests() {
	need_go
	trap 'code=$?; if [ $code -ne 0 ]; then say ""; say "build.sh test: FAILED in step \"$STEP\" after $STEPS_DONE steps passed ($((SECONDS - TEST_START))s)"; fi' EXIT
	step "gofmt" check_format
	step "generated code" check_generated
	step "go vet (native and js/wasm)" vet
	step "go test (native)" go_test_native
	step "go test (js/wasm in node)" go_test_wasm
	step "ONNX export (onnxruntime-node)" onnx_tests
	step "build the static site" site
	step "wasm size budget" check_wasm_size
	step "browser tests (headless Chromium)" browser_tests
	step "Cloudflare Worker (wrangler dev, headless Chromium)" worker_tests
	trap - EXIT
	say ""
	say "build.sh test: PASSED, $STEPS_DONE steps in $((SECONDS - TEST_START))s"
}

# wasm_sizes builds the page with a named copy of app.wasm and lists what its functions take
# (or, given another named copy, what changed since it).
wasm_sizes() {
	mkdir -p "$ROOT/tests/.bin"
	local named="$ROOT/tests/.bin/app-named.wasm" other=()
	if [ $# -gt 0 ]; then
		[ -f "$1" ] || die "wasm-sizes: no file $1"
		other=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
		[ "${other[0]}" != "$named" ] || die "wasm-sizes: copy $1 elsewhere first: the build overwrites it"
	fi
	APP_WASM_NAMED="$named" build
	go run ./internal/build/wasmsize "${other[@]}" "$named"
}

# --- main ---------------------------------------------------------------------------------

cmd=${1:-help}
[ $# -gt 0 ] && shift
case "$cmd" in
build) build ;;
serve) serve "$@" ;;
bench)
	if scale_asked "$@"; then
		bench_scale "$@"
	elif scale_numeric_asked "$@"; then
		bench_scale_numeric "$@"
	elif scale_float32_asked "$@"; then
		bench_scale_float32 "$@"
	elif workers_asked "$@"; then
		bench_workers "$@"
	elif devsuite_asked "$@"; then
		bench_devsuite "$@"
	else
		bench "$@"
	fi
	;;
site) site ;;
worker) worker "$@" ;;
worker-size) worker_size ;;
worker-build) worker_build ;;
test) run_tests ;;
wasm-sizes) wasm_sizes "$@" ;;
help | -h | --help) usage ;;
*)
	usage >&2
	exit 2
	;;
esac
