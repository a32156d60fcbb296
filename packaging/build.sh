#!/usr/bin/env bash
# Build GPU Sizer with PyInstaller.
#   packaging/build.sh            -> dist/gpusizer/  (one-folder bundle; run dist/gpusizer/gpusizer)
#   packaging/build.sh --onefile  -> also dist/onefile/gpusizer (one self-unpacking executable)
# Environment: PYTHON (default: .venv/bin/python, else python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

ONEFILE=0
for arg in "$@"; do
    case "$arg" in
        --onefile) ONEFILE=1 ;;
        -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown option: $arg" >&2; exit 2 ;;
    esac
done

PYTHON="${PYTHON:-}"
if [[ -z "$PYTHON" ]]; then
    if [[ -x "$ROOT/.venv/bin/python" ]]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
"$PYTHON" -c "import PyInstaller" 2>/dev/null || {
    echo "build.sh: PyInstaller missing: $PYTHON -m pip install -e '.[package]'" >&2; exit 1; }

VERSION="$("$PYTHON" -c 'import re,sys; print(re.search(r"__version__\s*=\s*[\"\x27]([^\"\x27]+)", open(sys.argv[1]).read()).group(1))' src/gpusizer/_version.py)"
echo "== GPU Sizer $VERSION: one-folder build"

# resources/ (desktop entry, icons) when present, packaging/ fallbacks otherwise
DESKTOP="$ROOT/resources/gpusizer.desktop"; [[ -f "$DESKTOP" ]] || DESKTOP="$ROOT/packaging/gpusizer.desktop"
ICON_SVG=""
for c in resources/gpusizer.svg resources/icons/gpusizer.svg resources/icons/hicolor/scalable/apps/gpusizer.svg packaging/gpusizer.svg; do
    [[ -f "$ROOT/$c" ]] && { ICON_SVG="$ROOT/$c"; break; }
done
ICON_PNG=""
for c in resources/gpusizer.png resources/icons/gpusizer.png resources/icons/gpusizer-256.png resources/icons/hicolor/256x256/apps/gpusizer.png; do
    [[ -f "$ROOT/$c" ]] && { ICON_PNG="$ROOT/$c"; break; }
done

"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" packaging/gpusizer.spec

B="$ROOT/dist/gpusizer"
ln -sfn gpusizer "$B/gpusizer-cli"                        # argv[0] dispatch -> CLI
mkdir -p "$B/share"
cp "$DESKTOP" "$B/share/gpusizer.desktop"
[[ -n "$ICON_SVG" ]] && cp "$ICON_SVG" "$B/share/gpusizer.svg"
[[ -n "$ICON_PNG" ]] && cp "$ICON_PNG" "$B/share/gpusizer.png"
if compgen -G "$ROOT/resources/icons/gpusizer-*.png" >/dev/null; then   # hicolor sizes
    mkdir -p "$B/share/icons"; cp "$ROOT"/resources/icons/gpusizer-*.png "$B/share/icons/"
fi
cp packaging/install-linux.sh "$B/install-linux.sh"
chmod +x "$B/install-linux.sh"
echo "$VERSION" > "$B/VERSION"

echo "== dist/gpusizer: $(du -sh "$B" | cut -f1)"

if [[ "$ONEFILE" == 1 ]]; then
    echo "== one-file build"
    GPUSIZER_ONEFILE=1 "$PYTHON" -m PyInstaller --noconfirm --log-level WARN \
        --distpath "$ROOT/dist/onefile" --workpath "$ROOT/build/pyinstaller-onefile" packaging/gpusizer.spec
    ln -sfn gpusizer "$ROOT/dist/onefile/gpusizer-cli"
    echo "== dist/onefile/gpusizer: $(du -sh "$ROOT/dist/onefile/gpusizer" | cut -f1)"
fi
