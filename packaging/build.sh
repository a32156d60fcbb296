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

# One place for the artwork: resources/ (desktop entry, SVG master); the PNG sizes are the
# package's own (src/gpusizer/gui/resources, rendered by resources/render_icons.py).
DESKTOP="$ROOT/resources/gpusizer.desktop"
ICON_SVG="$ROOT/resources/gpusizer.svg"
ICONS="$ROOT/src/gpusizer/gui/resources"

"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller" packaging/gpusizer.spec

B="$ROOT/dist/gpusizer"
ln -sfn gpusizer "$B/gpusizer-cli"                        # argv[0] dispatch -> CLI
mkdir -p "$B/share"
cp "$DESKTOP" "$B/share/gpusizer.desktop"
cp "$ROOT/resources/gpusizer-mime.xml" "$B/share/gpusizer-mime.xml"
cp "$ICON_SVG" "$B/share/gpusizer.svg"
cp "$ICONS/gpusizer-256.png" "$B/share/gpusizer.png"
mkdir -p "$B/share/icons"; cp "$ICONS"/gpusizer-*.png "$B/share/icons/"   # hicolor sizes
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
