"""The programs' start (gpusizer/entry.py): pydantic's plugin loader and its importlib.metadata
are not imported, and models still validate; the library leaves pydantic as it is."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
{setup}
from gpusizer.core.pipeline.scenario import parse_scenario
parse_scenario({{"model": {{"preset": "llama-3.1-8b"}}}})
print("importlib.metadata" in sys.modules)
"""


def _metadata_imported(setup: str) -> bool:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(setup=setup)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()[-1] == "True"


def test_programs_skip_pydantic_plugins() -> None:
    assert not _metadata_imported("from gpusizer.entry import skip_pydantic_plugins\nskip_pydantic_plugins()")


def test_library_keeps_pydantic_plugins() -> None:
    assert _metadata_imported("")


def test_skip_leaves_a_loaded_loader() -> None:
    from gpusizer.core.model.specs import Scenario  # noqa: F401  (pydantic's loader runs)
    from gpusizer.entry import _LOADER, skip_pydantic_plugins

    before = sys.modules[_LOADER]
    skip_pydantic_plugins()
    assert sys.modules[_LOADER] is before
