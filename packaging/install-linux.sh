#!/usr/bin/env bash
# Install the GPU Sizer bundle for the current user (no root needed).
#   install-linux.sh [BUNDLE_DIR]   install (default bundle: the folder this script is in if it
#                                   holds the 'gpusizer' executable, else <repo>/dist/gpusizer)
#   install-linux.sh --uninstall    remove everything installed here
# Installs: ~/.local/opt/gpusizer/ (the bundle), ~/.local/bin/gpusizer and gpusizer-cli (links),
#           ~/.local/share/applications/gpusizer.desktop, ~/.local/share/icons/hicolor/.../gpusizer.*
set -euo pipefail

DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
OPT="$HOME/.local/opt/gpusizer"
BIN="$HOME/.local/bin"
APPS="$DATA/applications"
ICONS="$DATA/icons/hicolor"

refresh_caches() {
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$APPS" 2>/dev/null || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$ICONS" 2>/dev/null || true
    command -v update-mime-database >/dev/null 2>&1 && update-mime-database "$DATA/mime" 2>/dev/null || true
}

uninstall() {
    rm -f "$BIN/gpusizer" "$BIN/gpusizer-cli" "$APPS/gpusizer.desktop" \
          "$ICONS/scalable/apps/gpusizer.svg" "$ICONS"/*/apps/gpusizer.png \
          "$DATA/mime/packages/gpusizer.xml"
    rm -rf "$OPT"
    refresh_caches
    echo "GPU Sizer removed."
}

case "${1:-}" in
    --uninstall|-u) uninstall; exit 0 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
esac

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -n "${1:-}" ]]; then SRC="$(cd "$1" && pwd)"
elif [[ -x "$HERE/gpusizer" && -d "$HERE/_internal" ]]; then SRC="$HERE"
else SRC="$(cd "$HERE/.." && pwd)/dist/gpusizer"
fi
[[ -x "$SRC/gpusizer" ]] || { echo "install-linux.sh: no bundle at $SRC (run packaging/build.sh)" >&2; exit 1; }

# copy the bundle (replace an older install)
mkdir -p "$(dirname "$OPT")"
if [[ "$SRC" != "$OPT" ]]; then
    rm -rf "$OPT.new"
    cp -a "$SRC" "$OPT.new"
    rm -rf "$OPT"
    mv "$OPT.new" "$OPT"
fi
ln -sfn gpusizer "$OPT/gpusizer-cli"

# command-line links
mkdir -p "$BIN"
ln -sfn "$OPT/gpusizer" "$BIN/gpusizer"
ln -sfn "$OPT/gpusizer-cli" "$BIN/gpusizer-cli"

# icon (SVG, and a PNG when the bundle has one)
ICON_PATH=""
if [[ -f "$OPT/share/gpusizer.svg" ]]; then
    mkdir -p "$ICONS/scalable/apps"
    cp "$OPT/share/gpusizer.svg" "$ICONS/scalable/apps/gpusizer.svg"
    ICON_PATH="$ICONS/scalable/apps/gpusizer.svg"
fi
if [[ -f "$OPT/share/gpusizer.png" ]]; then
    mkdir -p "$ICONS/256x256/apps"
    cp "$OPT/share/gpusizer.png" "$ICONS/256x256/apps/gpusizer.png"
    [[ -n "$ICON_PATH" ]] || ICON_PATH="$ICONS/256x256/apps/gpusizer.png"
fi
for png in "$OPT"/share/icons/gpusizer-*.png; do          # gpusizer-48.png -> 48x48/apps/
    [[ -f "$png" ]] || continue
    n="${png##*-}"; n="${n%.png}"
    [[ "$n" =~ ^[0-9]+$ ]] || continue
    mkdir -p "$ICONS/${n}x${n}/apps"
    cp "$png" "$ICONS/${n}x${n}/apps/gpusizer.png"
done
[[ -n "$ICON_PATH" ]] || ICON_PATH="gpusizer"

# desktop entry with absolute Exec and Icon, so a double-click works without ~/.local/bin on PATH
mkdir -p "$APPS"
DESK_SRC="$OPT/share/gpusizer.desktop"
if [[ -f "$DESK_SRC" ]]; then
    sed -e "s|^Exec=.*|Exec=\"$OPT/gpusizer\" %f|" \
        -e "s|^TryExec=.*|TryExec=$OPT/gpusizer|" \
        -e "s|^Icon=.*|Icon=$ICON_PATH|" "$DESK_SRC" > "$APPS/gpusizer.desktop"
else
    cat > "$APPS/gpusizer.desktop" <<DESK
[Desktop Entry]
Type=Application
Name=GPU Sizer
Comment=GPU memory and GPU count for training, fine-tuning and serving models
Exec="$OPT/gpusizer" %f
Icon=$ICON_PATH
Terminal=false
Categories=Science;Development;Utility;
MimeType=application/x-gpusizer-scenario;
DESK
fi
chmod +x "$APPS/gpusizer.desktop"
# the scenario file type (*.gpusizer.json), which the desktop entry's MimeType= names
if [[ -f "$OPT/share/gpusizer-mime.xml" ]]; then
    mkdir -p "$DATA/mime/packages"
    cp "$OPT/share/gpusizer-mime.xml" "$DATA/mime/packages/gpusizer.xml"
fi
refresh_caches

echo "GPU Sizer installed in $OPT"
echo "  window: gpusizer (or the 'GPU Sizer' entry in the applications menu)"
echo "  CLI:    gpusizer-cli --help"
case ":$PATH:" in *":$BIN:"*) ;; *) echo "  note: add $BIN to PATH to run them by name" ;; esac
