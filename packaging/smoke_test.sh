#!/usr/bin/env bash
# Smoke test of the frozen GPU Sizer bundle, run with no Python on PATH.
#   packaging/smoke_test.sh [--rebuild] [BUNDLE_DIR]
# Builds dist/gpusizer with build.sh when it is missing (or with --rebuild), then checks:
#   CLI through the gpusizer-cli link and through 'gpusizer cli': --version, presets (bundled
#   data found), gpus, estimate FILE (text and --json), import a GGUF, bad input -> exit 2;
#   the X11 (xcb) libraries Qt needs are in the bundle (gpusizer --check-libraries);
#   GUI: QT_QPA_PLATFORM=offscreen gpusizer --screenshot OUT.png -> exit 0 and a PNG
#   (SMOKE_REPEAT runs, default 3: catches a crash at exit);
#   install-linux.sh into a temporary HOME, then --uninstall.
# Exit 0 when all pass.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REBUILD=0; B=""
for arg in "$@"; do
    case "$arg" in
        --rebuild) REBUILD=1 ;;
        *) B="$arg" ;;
    esac
done
B="${B:-$ROOT/dist/gpusizer}"
if [[ "$REBUILD" == 1 || ! -x "$B/gpusizer" ]]; then
    "$ROOT/packaging/build.sh" || { echo "FAIL: build"; exit 1; }
fi
B="$(cd "$B" && pwd)"
[[ -e "$B/gpusizer-cli" ]] || ln -sfn gpusizer "$B/gpusizer-cli"

T="$(mktemp -d "${TMPDIR:-/tmp}/gpusizer-smoke.XXXXXX")"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/home"
cd "$T"                                  # not the repo: nothing importable from src/

FAILS=0
pass() { echo "ok   $*"; }
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
# a clean environment: no venv, no PYTHONPATH, only the system PATH
run() { env -i PATH=/usr/bin:/bin HOME="$T/home" LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "$@"; }

# 0. the environment really has no project Python
PY="$(run sh -c 'command -v python3 || true')"
case "$PY" in
    *.venv*|*pyenv*) fail "python3 on the clean PATH is $PY" ;;
    *) pass "clean PATH: python3 = ${PY:-none}" ;;
esac
if [[ -n "$PY" ]] && run python3 -c "import gpusizer" 2>/dev/null; then
    fail "gpusizer importable by $PY: the test would not prove the bundle is self-contained"
fi

cat > "$T/scenario.json" <<'JSON'
{"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
JSON
echo '{"model": {"preset": "no-such-model"}}' > "$T/bad.json"

# 1. CLI
out="$(run "$B/gpusizer-cli" --version 2>&1)"; rc=$?
want="$(cat "$B/VERSION" 2>/dev/null || true)"
[[ $rc == 0 && "$out" == *"${want}"* ]] && pass "gpusizer-cli --version: $out" || fail "gpusizer-cli --version (rc=$rc): $out"

out="$(run "$B/gpusizer-cli" presets 2>&1)"; rc=$?
n="$(printf '%s\n' "$out" | grep -c .)"
[[ $rc == 0 && "$out" == *llama-3.1-8b* && $n -ge 10 ]] && pass "gpusizer-cli presets: $n presets" \
    || fail "gpusizer-cli presets (rc=$rc, $n lines): ${out:0:400}"

out="$(run "$B/gpusizer-cli" gpus 2>&1)"; rc=$?
[[ $rc == 0 && "$out" == *h100* ]] && pass "gpusizer-cli gpus: $(printf '%s\n' "$out" | grep -c .) GPUs" \
    || fail "gpusizer-cli gpus (rc=$rc): ${out:0:400}"

out="$(run "$B/gpusizer-cli" estimate "$T/scenario.json" 2>&1)"; rc=$?
[[ $rc == 0 && -n "$out" ]] && pass "gpusizer-cli estimate FILE" || fail "gpusizer-cli estimate (rc=$rc): ${out:0:400}"

out="$(run "$B/gpusizer" cli estimate "$T/scenario.json" --json 2>&1)"; rc=$?
[[ $rc == 0 && "$out" == *'"per_gpu"'* ]] && pass "gpusizer cli estimate FILE --json" \
    || fail "gpusizer cli estimate --json (rc=$rc): ${out:0:400}"

cp "$ROOT/tests/io/data/tiny-q8_0.gguf" "$T/tiny.gguf"   # the bundled gguf type tables
out="$(run "$B/gpusizer-cli" import "$T/tiny.gguf" 2>&1)"; rc=$?
[[ $rc == 0 && "$out" == *gguf_q8_0* ]] && pass "gpusizer-cli import tiny.gguf" \
    || fail "gpusizer-cli import tiny.gguf (rc=$rc): ${out:0:400}"

out="$(run "$B/gpusizer-cli" estimate "$T/bad.json" 2>&1)"; rc=$?
[[ $rc == 2 ]] && pass "bad input -> exit 2: $out" || fail "bad input gave rc=$rc: ${out:0:400}"

# 1b. the X11 (xcb) libraries Qt's platform plugin loads are in the bundle (gui/platform_check.py)
out="$(run "$B/gpusizer" --check-libraries 2>&1)"; rc=$?
[[ $rc == 0 ]] && pass "X11 libraries in the bundle: $(printf '%s\n' "$out" | grep -c '^ok')" \
    || fail "X11 libraries missing from the bundle (rc=$rc): $(printf '%s\n' "$out" | grep MISSING | tr '\n' ' ')"

# 2. GUI, offscreen
for i in $(seq 1 "${SMOKE_REPEAT:-3}"); do
    rm -f "$T/shot.png"
    out="$(run "$B/gpusizer" --screenshot "$T/shot.png" 2>&1)"; rc=$?
    magic="$(head -c 8 "$T/shot.png" 2>/dev/null | od -An -c | tr -d ' ')"
    if [[ "$out" == *Traceback* ]]; then           # a module missing from the bundle, logged
        fail "gpusizer --screenshot (run $i) logged a traceback: ${out:0:800}"
    elif [[ $rc == 0 && -s "$T/shot.png" && "$magic" == *PNG* ]]; then
        pass "gpusizer --screenshot (run $i): $(stat -c %s "$T/shot.png") bytes"
    else
        fail "gpusizer --screenshot (run $i, rc=$rc): ${out:0:600}"
    fi
done
[[ -n "${SMOKE_KEEP_PNG:-}" && -f "$T/shot.png" ]] && cp "$T/shot.png" "$SMOKE_KEEP_PNG"

# 2b. start-up to the first painted frame (informational; the floor for this stack is ~0.5 s)
out="$(run env GPUSIZER_STARTUP_PROBE=1 "$B/gpusizer" 2>/dev/null)"; rc=$?
[[ $rc == 0 && "$out" == *"first frame"* ]] && pass "start-up: $out" || fail "start-up probe (rc=$rc): $out"

# 3. install / uninstall for the current user (a temporary HOME)
if [[ -x "$B/install-linux.sh" ]]; then
    H="$T/home"
    if run "$B/install-linux.sh" "$B" >/dev/null 2>"$T/inst.err"; then
        d="$H/.local/share/applications/gpusizer.desktop"
        ex="$(grep '^Exec=' "$d" 2>/dev/null)"; ic="$(grep '^Icon=' "$d" 2>/dev/null)"
        mt="$(grep '^MimeType=' "$d" 2>/dev/null)"
        mx="$H/.local/share/mime/packages/gpusizer.xml"
        [[ "$mt" == *"application/x-gpusizer-scenario"* && -f "$mx" ]] \
            && pass "install-linux.sh: scenario file type ($mt)" || fail "install-linux.sh: MimeType=[$mt], $mx"
        out="$(run "$H/.local/bin/gpusizer-cli" presets 2>&1)"; rc=$?
        if [[ $rc == 0 && "$ex" == *"$H/.local/opt/gpusizer/gpusizer"* && "$ic" == "Icon=/"* \
              && -x "$H/.local/bin/gpusizer" ]]; then
            pass "install-linux.sh: $ex / $ic"
        else
            fail "install-linux.sh: rc=$rc Exec=[$ex] Icon=[$ic] ${out:0:200}"
        fi
        run "$B/install-linux.sh" --uninstall >/dev/null 2>&1
        left="$(find "$H/.local" -name 'gpusizer*' 2>/dev/null)"
        [[ -z "$left" ]] && pass "install-linux.sh --uninstall" || fail "left after uninstall: $left"
    else
        fail "install-linux.sh: $(cat "$T/inst.err")"
    fi
fi

echo "bundle: $B ($(du -sh "$B" | cut -f1))"
if [[ $FAILS == 0 ]]; then echo "SMOKE TEST PASSED"; exit 0; fi
echo "SMOKE TEST FAILED ($FAILS)"; exit 1
