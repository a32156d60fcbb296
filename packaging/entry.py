"""Frozen entry point: one executable serves both the window and the CLI.

* invoked as ``gpusizer-cli`` (Linux: a symlink next to the executable, or in ~/.local/bin;
  Windows: the console ``gpusizer-cli.exe``; macOS: ``gpusizer-cli`` in the .app) -> the CLI,
  with all arguments;
* invoked as ``gpusizer cli ARGS...`` -> the CLI with ARGS;
* otherwise (``gpusizer``, the windowed ``GPU Sizer``) -> the GUI (``gpusizer.gui.app:main``),
  which reads sys.argv itself.
"""

from __future__ import annotations

import sys


def _is_cli(argv: list[str]) -> tuple[bool, list[str]]:
    # Either separator: a Windows path tested on any system names the same program.
    name = (argv[0] if argv else "").replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name.endswith(".exe"):
        name = name[:-4]
    if name.startswith("gpusizer-cli") or name.startswith("gpusizer_cli"):
        return True, argv[1:]
    if len(argv) > 1 and argv[1] == "cli":
        return True, argv[2:]
    return False, argv[1:]


def run(argv: list[str] | None = None) -> int:
    argv = list(sys.argv if argv is None else argv)
    cli, rest = _is_cli(argv)
    if cli:
        from gpusizer.cli import main as cli_main

        return int(cli_main(rest) or 0)
    from gpusizer.gui.app import main as gui_main

    return int(gui_main() or 0)


if __name__ == "__main__":
    sys.exit(run())
