#!/usr/bin/env bash
# The library case: examples/inflate (inflate-demo) and examples/checksum (checksum-demo) are
# libraries (`Role::Library`) that resolve their own facilities in their build scripts;
# examples/inflate-app is an application in a workspace of its own that depends on them (and on
# two crates of its own that use inflate-demo, one turning its `zlib` feature on) and selects
# their providers in its .cargo/config.toml [env]. Each check is shown by what a release build
# prints (`inflate-app --build-options`, Cargo's `Compiling`/`Dirty` lines) or links
# (`readelf -d` NEEDED):
#
# - the application's [env] selects for the library; another value rebuilds that library and what
#   depends on it, nothing else, and changes --build-options and NEEDED (libz.so.1 with zlib only);
# - a dependent turning the library's feature on compiles the provider and selects nothing (and
#   the library's build script warns, shown for a path dependency);
# - a bad value, or a provider whose feature is off, fails the application's build with the
#   library's error, which names the variable and says it may come from [env];
# - three libraries with three prefixes in one graph, and one library used by three crates: one
#   build of each, one provider per facility;
# - `cargo install --path` from the repository root and from inside the application;
# - a build with no choice at all (`DOCS_RS=1 cargo doc`, and the application built from another
#   directory, which does not read its .cargo/config.toml);
# - the libraries from their packaged .crate files through a directory source (`cargo package`,
#   `cargo vendor`), in a copy of the application whose dependencies are version-only, --offline:
#   the copy's [env] still selects, a file it names needs `relative = true`; the library's
#   build-script warnings are not shown, its errors are, so a provider its feature compiles and
#   nobody selects fails the build (selecting the default on purpose, or a graph-wide
#   RUST_BACKEND_ZLIB, builds); a registry install of the application reads no [env] (neither its
#   packaged .cargo/config.toml nor the current directory's), so it fails the same way until the
#   shell's variables select.
#
# Usage: scripts/library-case.sh         (run by scripts/test.sh)
# Target directory: target/example (shared with scripts/example-crate.sh); scratch files in
# target/example/library-case, replaced at each run. Needs the crates in the application's
# Cargo.lock: a first `cargo fetch` downloads them, everything after it runs --offline.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=$root/target/example
. scripts/lib/checks.sh
app=$root/examples/inflate-app
work=$CARGO_TARGET_DIR/library-case
rm -rf "$work"
mkdir -p "$work/log"
log=$work/log
for v in $(compgen -e | grep -E '^(INFLATE_DEMO_|CHECKSUM_DEMO_|ZSTD_DEMO_|LIBZ_SYS_STATIC$)' || true); do unset "$v"; done
status_before=$(git status --porcelain --untracked-files=all)

B=$CARGO_TARGET_DIR/release/inflate-app
printf 'hello, library\n' >"$work/hello"
python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(open(sys.argv[1], "rb").read()))' "$work/hello" >"$work/hello.z"

# build NAME DIR [cargo args...] — `cargo build --release -v` in DIR, output in $log/NAME; its status
build() {
	local name=$1 dir=$2
	shift 2
	(cd "$dir" && cargo build --release --offline -v "$@") >"$log/$name" 2>&1
}

# built NAME DIR [cargo args...] — the same, which must succeed
built() {
	build "$@" && return 0
	cat "$log/$1"
	fail "$1: build failed"
	return 1
}

# rebuilt NAME — the packages a build compiled or found dirty, sorted, space-separated
rebuilt() { { grep -E '^ +(Compiling|Dirty) ' "$log/$1" || true; } | awk '{print $2}' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

# expect_rebuilt NAME 'PACKAGES' — what rebuilt NAME says, exactly
expect_rebuilt() {
	local got
	got=$(rebuilt "$1")
	[ "$got" = "$2" ] && pass "$1: rebuilt: ${got:-(nothing)}" || fail "$1: rebuilt '${got:-(nothing)}', expected '${2:-(nothing)}'"
}

# section BIN HEADING — the lines of `BIN --build-options` under `[HEADING ...]`
section() { "$1" --build-options | awk -v h="[$2" 'substr($0, 1, 1) == "[" { on = (index($0, h) == 1); next } on'; }

# expect_options NAME BIN HEADING LINE... — each LINE is a line of that section
expect_options() {
	local name=$1 bin=$2 heading=$3 out want
	shift 3
	out=$(section "$bin" "$heading") || { fail "$name: --build-options failed"; return; }
	for want in "$@"; do
		grep -qxF -- "$want" <<<"$out" && pass "$name: [$heading] $want" || fail "$name: [$heading] has no line '$want' in: $out"
	done
}

# expect_libz NAME BIN libz|nolibz — whether NEEDED has libz.so.1
expect_libz() {
	local name=$1 bin=$2 want=$3 libs got=nolibz
	libs=$(needed "$bin" | tr '\n' ' ')
	case " $libs" in *" libz.so.1 "*) got=libz ;; esac
	[ "$got" = "$want" ] && pass "$name: NEEDED: $libs" || fail "$name: NEEDED is '$libs', expected $want"
}

# lacks NAME LOG TEXT — LOG does not hold TEXT
lacks() { grep -qF -- "$3" "$2" && fail "$1: output has '$3'" || pass "$1: output lacks '$3'"; }

# runs NAME LOG PATTERN COUNT — how many `Running` lines of LOG match PATTERN (an ERE)
runs() {
	local n
	n=$(grep -E '^ +Running ' "$2" | grep -cE -- "$3" || true)
	[ "$n" = "$4" ] && pass "$1: $n run(s) of /$3/" || fail "$1: $n run(s) of /$3/, expected $4"
}

unused_zlib="warning: inflate-demo@0.1.0: feature \`zlib\` of inflate-demo compiles the zlib inflate provider, but nothing selects it: inflate stays miniz"
library_note="note: inflate-demo is a library; its INFLATE_DEMO_* variables reach its build script from the environment of the whole build: the shell, or the [env] table of the application's .cargo/config.toml (Cargo does not say which)"

note "the application's crates (the one step that may use the network)"
if (cd "$app" && cargo fetch --locked) >"$log/fetch" 2>&1; then pass "cargo fetch --locked"; else cat "$log/fetch"; fail "cargo fetch --locked"; fi

note "the application's [env] selects for the libraries"
grep -E '^[A-Z0-9_]+ = ' "$app/.cargo/config.toml" | sed 's/^/  [env] /'
if built env-zlib "$app" --locked; then
	expect_options env-zlib "$B" inflate-demo "features: zlib" "inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)" "links: libz"
	expect_options env-zlib "$B" checksum-demo "features: dc" "sha1-provider: dc (from CHECKSUM_DEMO_SHA1_PROVIDER)"
	expect_options env-zlib "$B" zstd-demo "features: zstd" "compress-provider: zstd (from ZSTD_DEMO_COMPRESS_PROVIDER)" "links: libzstd"
	expect_options env-zlib "$B" "users of inflate-demo" "inflate-app: zlib" "plain-user: zlib" "zlib-user: zlib"
	expect_libz env-zlib "$B" libz
	out=$("$B" <"$work/hello.z")
	[ "$out" = "hello, library" ] && pass "env-zlib: decompresses: $out" || fail "env-zlib: decompressed '$out'"
	want=$(sha1sum <"$work/hello" | cut -d' ' -f1)
	out=$("$B" --sha1 <"$work/hello.z")
	[ "$out" = "$want" ] && pass "env-zlib: --sha1 = sha1sum: $out" || fail "env-zlib: --sha1 says $out, sha1sum $want"
	cp "$B" "$work/inflate-app.zlib"
fi

note "another [env] value: inflate-demo and its dependents rebuild, checksum-demo does not"
# An [env] entry on the command line (`--config`) is merged over the file's, as a second
# .cargo/config.toml would be; the edited file itself is checked in the packaged copy below.
if built env-miniz "$app" --locked --config 'env.INFLATE_DEMO_INFLATE_PROVIDER="miniz"'; then
	expect_rebuilt env-miniz "inflate-app inflate-demo plain-user zlib-user"
	says env-miniz "$log/env-miniz" "Dirty inflate-demo v0.1.0 ($root/examples/inflate): the env variable INFLATE_DEMO_INFLATE_PROVIDER changed"
	# One library built once for its three users: one build-script run, one rustc of it.
	runs env-miniz "$log/env-miniz" '/build/inflate-demo-[0-9a-f]+/build-script-build`$' 1
	runs env-miniz "$log/env-miniz" '--crate-name inflate_demo ' 1
	expect_options env-miniz "$B" inflate-demo "features: zlib" "inflate-provider: miniz (from INFLATE_DEMO_INFLATE_PROVIDER)" "links: (none)"
	expect_options env-miniz "$B" "users of inflate-demo" "inflate-app: miniz" "plain-user: miniz" "zlib-user: miniz"
	expect_options env-miniz "$B" checksum-demo "sha1-provider: dc (from CHECKSUM_DEMO_SHA1_PROVIDER)"
	expect_libz env-miniz "$B" nolibz
	cmp -s "$B" "$work/inflate-app.zlib" && fail "env-miniz: the same executable as with zlib" || pass "env-miniz: another executable than with zlib"
fi
if built env-back "$app" --locked; then
	expect_rebuilt env-back "inflate-app inflate-demo plain-user zlib-user"
	expect_options env-back "$B" inflate-demo "inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)"
	expect_libz env-back "$B" libz
fi
if built env-fresh "$app" --locked; then
	expect_rebuilt env-fresh ""
fi

note "one library, three users; two libraries, two prefixes: one of each in the graph"
(cd "$app" && cargo tree --locked --offline -e normal -i inflate-demo --prefix none) >"$log/tree" 2>&1 || true
n=$(grep -c '^inflate-demo v0.1.0' "$log/tree" || true)
[ "$n" = 1 ] && pass "cargo tree -i inflate-demo: one inflate-demo, used by $(grep -v '^inflate-demo' "$log/tree" | awk '{print $1}' | sort -u | tr '\n' ' ')" || { cat "$log/tree"; fail "cargo tree -i inflate-demo: $n inflate-demo nodes"; }
(cd "$app" && cargo tree --locked --offline -e normal -d) >"$log/dups" 2>&1 || true
grep -q 'nothing to print' "$log/dups" && pass "cargo tree -d: no package twice" || { cat "$log/dups"; fail "cargo tree -d lists duplicates"; }
for heading in inflate-demo checksum-demo; do
	n=$(section "$B" "$heading" | grep -c -- '-provider: ' || true)
	[ "$n" = 1 ] && pass "[$heading]: $(section "$B" "$heading" | grep -- '-provider: ')" || fail "[$heading]: $n provider lines"
done

note "a dependent's feature compiles and does not select (built from the repository root: no [env])"
# Cargo reads .cargo/config.toml from the current directory upwards, not from the manifest's:
# from the root, the application's [env] does not apply. --no-default-features: only zlib-user
# turns inflate-demo's `zlib` feature on.
if built dependent "$root" --locked --manifest-path examples/inflate-app/Cargo.toml --no-default-features; then
	expect_options dependent "$B" inflate-demo "features: zlib" "inflate-provider: miniz (from default)" "links: (none)"
	expect_options dependent "$B" "users of inflate-demo" "inflate-app: miniz" "plain-user: miniz" "zlib-user: miniz"
	expect_options dependent "$B" checksum-demo "features: (none)" "sha1-provider: rustcrypto (from default)"
	expect_libz dependent "$B" nolibz
	says dependent "$log/dependent" "$unused_zlib" "To use zlib, the application sets INFLATE_DEMO_INFLATE_PROVIDER=zlib (its .cargo/config.toml [env])"
	lacks dependent "$log/dependent" "warning: checksum-demo@0.1.0"
fi

note "configuration errors fail the application's build in the library's form"
if build bad-value "$app" --locked --config 'env.INFLATE_DEMO_INFLATE_PROVIDER="gzip"'; then
	fail "bad-value: build succeeded"
else
	says bad-value "$log/bad-value" "error: inflate-demo@0.1.0: INFLATE_DEMO_INFLATE_PROVIDER=gzip: \`gzip\` is not a provider of inflate" \
		"error: inflate-demo@0.1.0:   valid values: miniz, zlib" "error: inflate-demo@0.1.0:   $library_note"
fi
# plain-user alone turns no feature on: the [env] choice names a provider this build does not compile.
if build feature-off "$app" --locked -p plain-user; then
	fail "feature-off: build succeeded"
else
	says feature-off "$log/feature-off" "error: inflate-demo@0.1.0: INFLATE_DEMO_INFLATE_PROVIDER=zlib selects the zlib inflate provider, which this build does not compile: Cargo feature \`zlib\` is off" \
		"fix: turn the feature on where the application depends on inflate-demo: inflate-demo = { version = \"...\", features = [\"zlib\"] } (\`--features zlib\` when inflate-demo itself is built), or unset INFLATE_DEMO_INFLATE_PROVIDER" \
		"error: inflate-demo@0.1.0:   $library_note"
fi

note "cargo install --path reads the application's .cargo/config.toml"
# From the root and from inside: the --build-options line says whether its [env] applied.
for from in root app; do
	dest=$work/install-$from
	case $from in
	root) dir=$root path=examples/inflate-app ;;
	app) dir=$app path=. ;;
	esac
	if (cd "$dir" && cargo install --locked --offline --path "$path" --root "$dest") >"$log/install-$from" 2>&1; then
		line=$(section "$dest/bin/inflate-app" inflate-demo | grep '^inflate-provider: ')
		printf '  (cd %s && cargo install --path %s): %s\n' "${dir#"$root"/}" "$path" "$line"
		expect_options "install-from-$from" "$dest/bin/inflate-app" inflate-demo "inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)"
		expect_libz "install-from-$from" "$dest/bin/inflate-app" libz
	else
		cat "$log/install-$from"
		fail "install-from-$from: cargo install failed"
	fi
done

note "no choice at all: DOCS_RS=1 cargo doc of the libraries"
if (DOCS_RS=1 cargo doc --locked --offline --no-deps -p inflate-demo -p checksum-demo) >"$log/doc" 2>&1; then
	for c in inflate_demo checksum_demo; do
		[ -s "$CARGO_TARGET_DIR/doc/$c/index.html" ] && pass "doc: target/example/doc/$c/index.html" || fail "doc: no $c/index.html"
	done
else
	cat "$log/doc"
	fail "DOCS_RS=1 cargo doc failed"
fi

note "the libraries as packaged .crate files, through a directory source, --offline"
# Our three crates from `cargo package` (a packaged manifest has version-only dependencies), the
# third-party ones from `cargo vendor`; a copy of the application with version-only dependencies.
vendor=$work/vendor
if cargo package --locked --offline --no-verify --allow-dirty -p flagsplit-info -p flagsplit-config -p inflate-demo -p checksum-demo -p zstd-demo >"$log/package" 2>&1 &&
	(cd "$app" && cargo vendor --locked --offline -q "$vendor") >"$log/vendor" 2>&1; then
	pass "vendored: $(find "$vendor" -mindepth 1 -maxdepth 1 | wc -l) third-party crates"
	config_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' crates/config/Cargo.toml | head -1)
	for c in "flagsplit-info-$config_version" "flagsplit-config-$config_version" inflate-demo-0.1.0 checksum-demo-0.1.0 zstd-demo-0.1.0; do
		crate=$CARGO_TARGET_DIR/package/$c.crate
		tar -xzf "$crate" -C "$vendor"
		printf '{"files":{},"package":"%s"}' "$(sha256sum "$crate" | cut -d' ' -f1)" >"$vendor/$c/.cargo-checksum.json"
	done
	pass "unpacked flagsplit-info, flagsplit-config, inflate-demo, checksum-demo, zstd-demo (.crate files) beside them"
	copy=$work/app-registry
	mkdir -p "$copy"
	(cd "$app" && git ls-files -z -co --exclude-standard . | tar --null -T - -cf -) | tar -xf - -C "$copy"
	for m in "$copy/Cargo.toml" "$copy"/crates/*/Cargo.toml; do
		sed -i -E 's/^((inflate|checksum|zstd)-demo = \{ |flagsplit-config = \{ )path = "[^"]*", /\1/' "$m"
	done
	if grep -rqE 'path = "\.\./(\.\./)*(inflate|checksum|zstd)"' "$copy" --include=Cargo.toml; then
		fail "the copy still has a path dependency on a library"
	else
		pass "copy: $(grep -h '^inflate-demo = ' "$copy/Cargo.toml")"
	fi
	printf '\n[source.crates-io]\nreplace-with = "packaged"\n\n[source.packaged]\ndirectory = "%s"\n' "$vendor" >>"$copy/.cargo/config.toml"
	# Cargo does not look at the files' times of a registry package (it is keyed by name, version
	# and source path): what an earlier run built from an older .crate would count as fresh.
	# Remove it.
	(cd "$copy" && cargo clean --offline --release -p inflate-demo -p checksum-demo -p zstd-demo -p flagsplit-config -p flagsplit-info -p inflate-app -p plain-user -p zlib-user) >"$log/clean" 2>&1 || { cat "$log/clean"; fail "cargo clean in the copy"; }
	if built reg-zlib "$copy"; then
		grep -qE '^ +Compiling inflate-demo v0\.1\.0$' "$log/reg-zlib" && pass "reg-zlib: inflate-demo compiled from the packaged crate (no path)" || fail "reg-zlib: inflate-demo was not compiled from the directory source"
		expect_options reg-zlib "$B" inflate-demo "features: zlib" "inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)" "links: libz"
		expect_options reg-zlib "$B" checksum-demo "sha1-provider: dc (from CHECKSUM_DEMO_SHA1_PROVIDER)"
		# The packaged zstd-demo probes libzstd with its packaged compat/ program.
		expect_options reg-zlib "$B" zstd-demo "compress-provider: zstd (from ZSTD_DEMO_COMPRESS_PROVIDER)" "links: libzstd"
		expect_libz reg-zlib "$B" libz
		section "$B" inflate-demo | grep '^inflate-provider: ' | sed 's/^/  packaged, [env] zlib: /'
	fi
	# The copy's [env] without the inflate-demo line: zlib-user turns the packaged library's `zlib`
	# feature on and nothing selects a provider. A registry package's build-script warnings are not
	# shown, so the library's build script fails the build, in Cargo's default output (no -v).
	sed -i '/^INFLATE_DEMO_INFLATE_PROVIDER = /d' "$copy/.cargo/config.toml"
	if (cd "$copy" && cargo build --release --offline --locked) >"$log/reg-default" 2>&1; then
		fail "reg-default: built with a provider compiled and selected by nobody"
	else
		says reg-default "$log/reg-default" \
			"error: inflate-demo@0.1.0: feature \`zlib\` of inflate-demo compiles the zlib inflate provider, but nothing selects it: inflate stays miniz" \
			"inflate-demo comes from a registry or git, whose build-script warnings Cargo shows only with -vv" \
			"fix: select it in the application's .cargo/config.toml [env]: INFLATE_DEMO_INFLATE_PROVIDER=zlib (or RUST_BACKEND_ZLIB=system for every zlib facility in the build)" \
			"fix: or keep the default, and say so: INFLATE_DEMO_INFLATE_PROVIDER=miniz"
	fi
	# Saying so: the default, selected on purpose; and a graph-wide setting selects too.
	if built reg-default-said "$copy" --locked --config 'env.INFLATE_DEMO_INFLATE_PROVIDER="miniz"'; then
		expect_options reg-default-said "$B" inflate-demo "features: zlib" "inflate-provider: miniz (from INFLATE_DEMO_INFLATE_PROVIDER)"
		expect_libz reg-default-said "$B" nolibz
	fi
	if built reg-graph "$copy" --locked --config 'env.RUST_BACKEND_ZLIB="system"'; then
		expect_options reg-graph "$B" inflate-demo "inflate-provider: zlib (from graph-wide RUST_BACKEND_ZLIB)"
		expect_libz reg-graph "$B" libz
	fi
	# A file named in [env]: with relative = true it is the copy's own; without, the library's
	# build script would resolve it inside its unpacked package, and says so.
	printf '[inflate]\nprovider = "zlib"\n' >"$copy/inflate.toml"
	printf 'INFLATE_DEMO_CONFIG = { value = "inflate.toml", relative = true }\n' >"$work/env-line"
	sed -i "/^CHECKSUM_DEMO_SHA1_PROVIDER = /r $work/env-line" "$copy/.cargo/config.toml"
	if built reg-file "$copy" --locked; then
		expect_options reg-file "$B" inflate-demo "inflate-provider: zlib (from $copy/inflate.toml:2:12)"
		expect_libz reg-file "$B" libz
	fi
	sed -i 's/^INFLATE_DEMO_CONFIG = .*/INFLATE_DEMO_CONFIG = "inflate.toml"/' "$copy/.cargo/config.toml"
	if build reg-file-relative "$copy" --locked; then
		fail "reg-file-relative: build succeeded"
	else
		says reg-file-relative "$log/reg-file-relative" "a relative path means nothing for a package built from a registry" \
			"in .cargo/config.toml [env] INFLATE_DEMO_CONFIG = { value = \"inflate.toml\", relative = true }"
	fi
	sed -i '/^INFLATE_DEMO_CONFIG = /d' "$copy/.cargo/config.toml"
	sed -i 's/^CHECKSUM_DEMO_SHA1_PROVIDER = .*/&\nINFLATE_DEMO_INFLATE_PROVIDER = "gzip"/' "$copy/.cargo/config.toml"
	if build reg-bad "$copy" --locked; then
		fail "reg-bad: build succeeded"
	else
		says reg-bad "$log/reg-bad" "INFLATE_DEMO_INFLATE_PROVIDER=gzip: \`gzip\` is not a provider of inflate" "$library_note"
	fi

	note "cargo install from a registry reads neither the packaged nor the current directory's .cargo/config.toml"
	# The application and its two crates packaged (without a Cargo.lock: one would need the
	# libraries in a registry), unpacked beside the libraries; installed from a directory whose
	# .cargo/config.toml only replaces the registry.
	if (cd "$app" && cargo package --offline --no-verify --allow-dirty --exclude-lockfile -p inflate-app -p plain-user -p zlib-user) >"$log/package-app" 2>&1; then
		# A committed .cargo/config.toml is packaged; the installs below show it is not read.
		packaged_env=$(tar -xzOf "$CARGO_TARGET_DIR/package/inflate-app-0.1.0.crate" inflate-app-0.1.0/.cargo/config.toml 2>/dev/null | grep '^INFLATE_DEMO_INFLATE_PROVIDER = ' || true)
		[ -n "$packaged_env" ] && pass "inflate-app's package holds .cargo/config.toml: $packaged_env" || fail "inflate-app's package holds no .cargo/config.toml with the [env] line"
		for c in inflate-app plain-user zlib-user; do
			crate=$CARGO_TARGET_DIR/package/$c-0.1.0.crate
			tar -xzf "$crate" -C "$vendor"
			printf '{"files":{},"package":"%s"}' "$(sha256sum "$crate" | cut -d' ' -f1)" >"$vendor/$c-0.1.0/.cargo-checksum.json"
		done
		# A registry install reads no .cargo/config.toml of the current directory either (measured
		# with cargo 1.95: neither [source] nor [env] there applies); --config and the shell do.
		elsewhere=$work/elsewhere
		mkdir -p "$elsewhere/.cargo"
		printf '[source.crates-io]\nreplace-with = "packaged"\n\n[source.packaged]\ndirectory = "%s"\n\n[env]\nINFLATE_DEMO_INFLATE_PROVIDER = "zlib"\n' "$vendor" >"$elsewhere/.cargo/config.toml"
		if (cd "$elsewhere" && cargo install --offline inflate-app --root "$work/install-registry-cwd") >"$log/install-registry-cwd" 2>&1; then
			fail "install-registry-cwd: the current directory's [source] applied to cargo install"
		else
			says install-registry-cwd "$log/install-registry-cwd" "could not find \`inflate-app\` in registry \`crates-io\`"
		fi
		source_args=(--config 'source.crates-io.replace-with="packaged"' --config "source.packaged.directory=\"$vendor\"")
		for how in none shell; do
			dest=$work/install-registry-$how
			vars=()
			[ "$how" = shell ] && vars=(INFLATE_DEMO_INFLATE_PROVIDER=zlib CHECKSUM_DEMO_SHA1_PROVIDER=dc ZSTD_DEMO_COMPRESS_PROVIDER=zstd)
			if (cd "$elsewhere" && env "${vars[@]}" cargo install --offline "${source_args[@]}" inflate-app --root "$dest") >"$log/install-registry-$how" 2>&1; then
				line=$(section "$dest/bin/inflate-app" inflate-demo | grep '^inflate-provider: ')
				printf '  %scargo install --config (the directory source) inflate-app: %s\n' "${vars[*]:+${vars[*]} }" "$line"
				case $how in
				none) fail "install-registry: installed although zlib-user compiles inflate-demo's zlib provider and nothing selects it" ;;
				shell) expect_options "install-registry-shell" "$dest/bin/inflate-app" inflate-demo "inflate-provider: zlib (from INFLATE_DEMO_INFLATE_PROVIDER)" ;;
				esac
			elif [ "$how" = none ]; then
				# No [env] is read: the user selects in the shell, as the error says.
				says install-registry "$log/install-registry-$how" "nothing selects it" "INFLATE_DEMO_INFLATE_PROVIDER=zlib"
			else
				cat "$log/install-registry-$how"
				fail "install-registry-$how: cargo install failed"
			fi
		done
	else
		cat "$log/package-app"
		fail "cargo package of the application failed"
	fi
else
	cat "$log/package" "$log/vendor"
	fail "cargo package or cargo vendor failed"
fi

note "a library that asks for an old Rust (rust-version 1.63): one-colon directives, errors without cargo::error"
# Cargo refuses `cargo::` lines from a package whose rust-version is below 1.77, and knows
# `cargo::error` only from 1.84: flagsplit-config's directives have one colon, and its errors go out
# as warnings and on stderr with exit status 1 for such a package.
old=$work/old-rust
mkdir -p "$old"
cat >"$old/Cargo.toml" <<EOT
[package]
name = "old-rust-lib"
version = "0.1.0"
edition = "2021"
rust-version = "1.63"
build = "build.rs"

[lib]
path = "lib.rs"

[build-dependencies]
flagsplit-config = { path = "$root/crates/config", features = ["build-script"] }

[workspace]
EOT
cat >"$old/build.rs" <<'EOT'
use flagsplit_config::{Facility, Provider, Spec};

static SPEC: Spec = Spec::library("old-rust-lib", "OLD_RUST", "old_rust").facilities(&[Facility::new(
    "inflate",
    "INFLATE",
    "DEFLATE decompression",
    &[
        Provider::new("miniz", "MINIZ_OXIDE", "pure Rust"),
        Provider::new("zlib", "ZLIB", "the system zlib"),
    ],
)]);

fn main() {
    flagsplit_config::script::Build::new(&SPEC).resolve_and_emit();
}
EOT
cat >"$old/lib.rs" <<'EOT'
#[cfg(old_rust_inflate = "miniz")]
pub const PROVIDER: &str = "miniz";
#[cfg(old_rust_inflate = "zlib")]
pub const PROVIDER: &str = "zlib";
EOT
cp "$root/Cargo.lock" "$old/Cargo.lock"
if (cd "$old" && OLD_RUST_INFLATE_PROVIDER=zlib cargo build --offline -v) >"$log/old-rust" 2>&1; then
	pass "old-rust: builds with OLD_RUST_INFLATE_PROVIDER=zlib under rust-version 1.63"
	grep -q -- "--cfg 'old_rust_inflate=\"zlib\"'" "$log/old-rust" && pass "old-rust: rustc got --cfg old_rust_inflate=\"zlib\"" || { cat "$log/old-rust"; fail "old-rust: no --cfg old_rust_inflate=\"zlib\" on rustc's command line"; }
else
	cat "$log/old-rust"
	fail "old-rust: the build failed"
fi
if (cd "$old" && OLD_RUST_INFLATE_PROVIDER=gzip cargo build --offline) >"$log/old-rust-bad" 2>&1; then
	fail "old-rust: OLD_RUST_INFLATE_PROVIDER=gzip built"
else
	says old-rust-bad "$log/old-rust-bad" \
		'warning: old-rust-lib@0.1.0: OLD_RUST_INFLATE_PROVIDER=gzip: `gzip` is not a provider of inflate' \
		'valid values: miniz, zlib' \
		"(exit status: 1)"
	lacks old-rust-bad "$log/old-rust-bad" 'cargo::'
fi

note "the working tree"
status_after=$(git status --porcelain --untracked-files=all)
[ "$status_after" = "$status_before" ] && pass "git status: as before the run ($([ -z "$status_after" ] && echo clean || echo "$(wc -l <<<"$status_after") entries"))" || fail "git status changed: $(diff <(echo "$status_before") <(echo "$status_after"))"

finish "library case"
