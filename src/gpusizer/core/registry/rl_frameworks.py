"""RL frameworks (the scenario's ``rl.framework``): one entry per framework, each with its
releases' defaults for the ``rl.*`` knobs (core/registry/rl_framework_releases.py,
core/registry/rl_framework_releases_verl.py and core/registry/rl_framework_releases_trl.py,
every value with the file and tag it was read from).

A release is picked as the serving engines' are (core/registry/engines.py ``release``): null
the newest modelled, a version listed its own, a version between two the older one's; a
version older than every listed one, or unreadable, is refused naming the releases.
"""

from __future__ import annotations

from dataclasses import dataclass

from .engines import release
from .rl_framework_releases import NEMO_RL, RLDefault, RLRelease
from .rl_framework_releases_trl import TRL
from .rl_framework_releases_verl import OPENRLHF, VERL
from .table import add

__all__ = ["RL_FRAMEWORKS", "RLDefault", "RLFramework", "RLRelease", "register"]


@dataclass(frozen=True)
class RLFramework:
    """One RL framework: its id, the label it is known by and its releases, oldest first."""

    id: str
    label: str
    releases: tuple[RLRelease, ...]

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(r.version for r in self.releases)

    def release(self, version: str | None) -> RLRelease:
        """The release whose defaults apply to ``version`` (null: the newest); KeyError where
        none does."""
        return release(self.releases, version)


RL_FRAMEWORKS: dict[str, RLFramework] = {}


def register(fw: RLFramework) -> RLFramework:
    """Add a framework (a DuplicateId if its id, or a version among its releases, is taken)."""
    seen: dict[str, RLRelease] = {}
    for r in fw.releases:
        add(seen, r.version, r, f"{fw.label} release")
    return add(RL_FRAMEWORKS, fw.id, fw, "RL framework")


for _f in (
    RLFramework("nemo_rl", "NeMo RL", NEMO_RL),
    RLFramework("verl", "verl", VERL),
    RLFramework("openrlhf", "OpenRLHF", OPENRLHF),
    RLFramework("trl", "TRL", TRL),
):
    register(_f)
