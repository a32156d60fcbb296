"""What a framework profile answers of its own fields (core/registry/framework_profile.py
``FrameworkProfile``, which takes them from :class:`ProfileQueries`): the releases and serving
features a version resolves to, the GPU vendors it runs on, whether it runs a kind's work and
in pipeline stages, the switch past the model's context length and its recurrent-state layout.
Split from core/registry/framework_profile.py for size; the rules are as they were there.
"""

from __future__ import annotations

from typing import Literal

from .engines import EngineRelease, release
from .framework_defaults import VENDORS
from .long_context import LongContextRule
from .serving_support import FeatureTable
from .workloads import WorkloadKind


class ProfileQueries:
    """The queries of a :class:`~gpusizer.core.registry.framework_profile.FrameworkProfile`;
    the fields they read are the profile's (declared here for the type checker only: the
    dataclass takes its fields from its own class body)."""

    trains: bool
    serves: bool
    runs_on: tuple[str, ...]
    pipeline_training: bool
    pipeline_serving: bool
    releases: tuple[EngineRelease, ...]
    serving_features: FeatureTable | None
    long_context: LongContextRule | None
    recurrent_state: Literal["transformers", "engine"]

    @property
    def versions(self) -> tuple[str, ...]:
        """``serving.engine_version`` values this profile accepts (empty: none)."""
        return tuple(r.version for r in self.releases)

    def features(self, version: str | None) -> FeatureTable | None:
        """The serving features of the release ``version`` resolves to (its own table, else the
        profile's). None: not a serving engine, or a version it has no release for (the
        version's own error names it, not a feature's)."""
        if not self.releases:
            return self.serving_features
        try:
            own = release(self.releases, version).features
        except KeyError:
            return None
        return own if own is not None else self.serving_features

    def runs_on_vendor(self, vendor: str) -> bool:
        """Whether it runs on ``vendor``'s GPUs (a vendor outside VENDORS is not judged)."""
        v = vendor.lower()
        return v in {x.lower() for x in self.runs_on} or v not in {x.lower() for x in VENDORS}

    def pipelines(self, kind: WorkloadKind) -> bool:
        """Whether it runs ``kind``'s work (its training pool when the kind trains) in pipeline
        stages: a ``parallelism.pipeline`` above 1 is possible."""
        return self.pipeline_training if kind.trains else self.pipeline_serving

    def fits(self, kind: WorkloadKind) -> bool:
        """Whether this framework runs that kind of work."""
        return self.trains if kind.trains else self.serves

    @property
    def long_context_switch(self) -> str:
        """The switch that lets a longer context through (VLLM_ALLOW_LONG_MAX_MODEL_LEN...)."""
        return self.long_context.switch if self.long_context else ""

    @property
    def keeps_whole_conv_kernel(self) -> bool:
        """transformers' recurrent-state layout: the whole conv kernel, an fp32 state."""
        return self.recurrent_state == "transformers"
